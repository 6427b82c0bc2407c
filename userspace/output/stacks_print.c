// SPDX-License-Identifier: GPL-2.0
/* A stack's frames, kernel and symbolized user, as text or a JSON line. */
#include <inttypes.h>
#include <stdio.h>

#include <json-c/json.h>

#include "stacks_print.h"

void kp_stack_print_text(struct kp_stacks *c, struct kp_stack_info *si)
{
	unsigned int i;

	if (si->tgid)
		printf("stack %u: %s[%u], %u kernel and %u user frames\n",
		       si->id, si->comm, si->tgid, si->nr_kernel, si->nr_user);
	else
		printf("stack %u: %s, %u kernel frames\n", si->id, si->comm,
		       si->nr_kernel);
	for (i = 0; i < si->nr_kernel; i++)
		printf("  %-18s %s\n", "[kernel]", si->kernel[i]);
	for (i = 0; i < si->nr_user; i++)
		printf("  0x%016" PRIx64 " %s\n", si->user_ips[i],
		       kp_stack_user(c, si, i));
}

void kp_stack_print_json(struct kp_stacks *c, struct kp_stack_info *si)
{
	json_object *o = json_object_new_object(), *k, *u, *f;
	char ip[24];
	unsigned int i;

	json_object_object_add(o, "id", json_object_new_uint64(si->id));
	json_object_object_add(o, "tgid", json_object_new_uint64(si->tgid));
	json_object_object_add(o, "comm", json_object_new_string(si->comm));
	k = json_object_new_array();
	for (i = 0; i < si->nr_kernel; i++)
		json_object_array_add(k, json_object_new_string(si->kernel[i]));
	json_object_object_add(o, "kernel", k);
	u = json_object_new_array();
	for (i = 0; i < si->nr_user; i++) {
		f = json_object_new_object();
		snprintf(ip, sizeof(ip), "0x%" PRIx64, si->user_ips[i]);
		json_object_object_add(f, "ip", json_object_new_string(ip));
		json_object_object_add(f, "symbol",
				       json_object_new_string(kp_stack_user(c, si, i)));
		json_object_array_add(u, f);
	}
	json_object_object_add(o, "user", u);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}
