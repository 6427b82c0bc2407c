// SPDX-License-Identifier: GPL-2.0
/* abtest's result as one JSON object (see kprof-abtest(1)). */
#include <stdio.h>

#include <json-c/json.h>

#include "abtest_json.h"

static json_object *json_array(const double *v, unsigned int n)
{
	json_object *a = json_object_new_array();
	unsigned int i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_double(v[i]));
	return a;
}

void kp_ab_json(char *const *argv, uint64_t warmup, const struct kp_ab_result *r)
{
	json_object *j = json_object_new_object(), *cmd, *s;
	unsigned int i;

	cmd = json_object_new_array();
	for (i = 0; argv[i]; i++)
		json_object_array_add(cmd, json_object_new_string(argv[i]));
	json_object_object_add(j, "command", cmd);
	json_object_object_add(j, "rounds", json_object_new_int(r->rounds));
	json_object_object_add(j, "warmup", json_object_new_int64(warmup));
	json_object_object_add(j, "detached_s", json_array(r->a, r->rounds));
	json_object_object_add(j, "attached_s", json_array(r->b, r->rounds));
	json_object_object_add(j, "detached_median_s",
			       json_object_new_double(r->a_med));
	json_object_object_add(j, "attached_median_s",
			       json_object_new_double(r->b_med));
	json_object_object_add(j, "noise", json_object_new_double(r->a_noise));
	s = json_object_new_object();
	json_object_object_add(s, "median", json_object_new_double(r->slow_med));
	json_object_object_add(s, "q1", json_object_new_double(r->slow_q1));
	json_object_object_add(s, "q3", json_object_new_double(r->slow_q3));
	json_object_object_add(s, "min", json_object_new_double(r->slow_min));
	json_object_object_add(s, "max", json_object_new_double(r->slow_max));
	json_object_object_add(j, "slowdown", s);
	json_object_object_add(j, "attached_slower",
			       json_object_new_int(r->b_slower));
	json_object_object_add(j, "sign_test_p", json_object_new_double(r->p));
	json_object_object_add(j, "within_noise",
			       json_object_new_boolean(r->within_noise));
	printf("%s\n", json_object_to_json_string_ext(j,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
}
