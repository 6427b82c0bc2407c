// SPDX-License-Identifier: GPL-2.0
/* The module's status, gathered: see status.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"
#include "status.h"
#include "util.h"

int kp_mod_loaded(struct kmod_module *mod)
{
	return kmod_module_get_initstate(mod) >= 0;
}

/* --- who holds the device --------------------------------------------- */

/* Does /proc/PID/fd or /proc/PID/maps refer to the device? */
static int pid_holds(const char *pid, const char *dev)
{
	char path[600], link[300], line[600];
	struct dirent *e;
	int found = 0;
	ssize_t n;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			found = !strcmp(link, dev);
		}
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = found ? NULL : fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		n = strlen(line);
		found = (size_t)n > strlen(dev) &&
			!strcmp(line + n - strlen(dev), dev);
	}
	if (f)
		fclose(f);
	return found;
}

void kp_mod_holders(char *buf, size_t len)
{
	const char *dev = kprof_dev_path();
	char path[300], comm[64];
	struct dirent *e;
	size_t used = 0;
	int n = 0;
	DIR *d;
	FILE *f;

	buf[0] = '\0';
	d = opendir("/proc");
	while (d && (e = readdir(d)) && n < KP_MAX_HOLDERS) {
		if (!isdigit((unsigned char)e->d_name[0]) ||
		    (pid_t)atoi(e->d_name) == getpid() ||
		    !pid_holds(e->d_name, dev))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "re");
		if (!f || !fgets(comm, sizeof(comm), f))
			strcpy(comm, "?\n");
		if (f)
			fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		kp_text_sanitize(comm);
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%spid %s (%s)", n ? ", " : "", e->d_name,
				 comm);
		n++;
	}
	if (d)
		closedir(d);
}

/* The first line of @path into @buf, without its newline; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static void status_params(struct kp_status *s)
{
	const char *dir = "/sys/module/" KP_MODNAME "/parameters";
	char path[512], val[128];
	struct dirent **list;
	int i, n;

	n = scandir(dir, &list, NULL, alphasort);
	for (i = 0; i < n; i++) {
		struct kp_status_param *p = &s->params[s->nr_params];

		if (list[i]->d_name[0] != '.' &&
		    s->nr_params < KP_STATUS_PARAMS) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 list[i]->d_name);
			if (!read_line(path, val, sizeof(val))) {
				snprintf(p->name, sizeof(p->name), "%s",
					 list[i]->d_name);
				snprintf(p->value, sizeof(p->value), "%s", val);
				s->nr_params++;
			}
		}
		free(list[i]);
	}
	if (n >= 0)
		free(list);
}

/* The guard on every possible CPU; none when the module cannot tell. */
static void status_cpus(struct kp_status *s, int fd)
{
	unsigned int cpu, n = s->info.nr_cpu_ids;

	if (!n || n > 65536)
		return;
	s->cpus = calloc(n, sizeof(*s->cpus));
	if (!s->cpus)
		return;
	for (cpu = 0; cpu < n; cpu++) {
		struct kprof_cpu_cost *c = &s->cpus[s->nr_cpus];

		if (!kprof_get_cpu_cost(fd, cpu, c))
			s->nr_cpus++;
	}
}

/* The open sessions (API 1.9), their command names made printable. */
static void status_sessions(struct kp_status *s, int fd)
{
	struct kprof_sessions *ss = calloc(1, sizeof(*ss));
	unsigned int i;

	if (!ss)
		return;
	if (kprof_get_sessions(fd, ss) ||
	    ss->nr_listed > KPROF_SESSIONS_MAX) {
		free(ss);
		return;
	}
	for (i = 0; i < ss->nr_listed; i++) {
		ss->s[i].comm[sizeof(ss->s[i].comm) - 1] = '\0';
		kp_text_sanitize(ss->s[i].comm);
	}
	s->now_ns = kp_now_ns();
	s->sessions = ss;
}

static void status_device(struct kp_status *s)
{
	int fd = open(kprof_dev_path(), O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		s->dev_err = errno;
		return;
	}
	s->dev_err = -kprof_get_info(fd, &s->info);
	if (!s->dev_err)
		s->dev_err = -kprof_get_config(fd, &s->cfg);
	if (!s->dev_err)
		s->dev_err = -kprof_get_stats(fd, &s->st);
	s->have_dev = !s->dev_err;
	if (s->have_dev && kp_stats_have_guard(&s->st))
		status_cpus(s, fd);
	if (s->have_dev)
		status_sessions(s, fd);
	close(fd);
}

int kp_status_gather(struct kp_status *s, struct kmod_ctx *ctx)
{
	struct kmod_module *mod = NULL;
	struct kmod_list *list = NULL;

	memset(s, 0, sizeof(*s));
	if (kmod_module_new_from_lookup(ctx, KP_MODNAME, &list) >= 0 && list)
		mod = kmod_module_get_module(list);
	kmod_module_unref_list(list);
	if (!mod && kmod_module_new_from_name(ctx, KP_MODNAME, &mod) < 0) {
		kp_err("status: libkmod cannot name %s", KP_MODNAME);
		return KP_EXIT_FAIL;
	}
	s->path = kmod_module_get_path(mod);
	if (s->path)
		s->path = strdup(s->path);
	s->loaded = kp_mod_loaded(mod);
	if (s->loaded) {
		s->refcnt = kmod_module_get_refcnt(mod);
		read_line("/sys/module/" KP_MODNAME "/version", s->version,
			  sizeof(s->version));
		kp_mod_holders(s->holders, sizeof(s->holders));
		status_params(s);
		status_device(s);
	}
	kmod_module_unref(mod);
	return 0;
}

void kp_status_free(struct kp_status *s)
{
	free((char *)s->path);
	free(s->cpus);
	free(s->sessions);
}
