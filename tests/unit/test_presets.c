// SPDX-License-Identifier: GPL-2.0
/* Preset registry, knob table, policy specs and release mapping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdint.h>
#include "models.h"
#include "policy.h"

#define WA	(SR_F_WA_IDLE | SR_F_WA_WEIGHT | SR_F_WA_BIAS)
#define F54	(WA | SR_F_SIS_PROP | SR_F_TTWU_QUEUE)

static const struct {
	const char *name;
	const struct sr_policy_ops *ops;
	unsigned int kver, features;
	bool patched;
} expect[] = {
	{ "linux-2.6.37", &sr_srqf_2637_ops, SR_KV3(2, 6, 37),
	  SR_F_AFFINE_WAKEUPS | SR_F_LB_BIAS, false },
	{ "linux-2.6.38", &sr_srqf_2638_ops, SR_KV3(2, 6, 38),
	  SR_F_AFFINE_WAKEUPS | SR_F_LB_BIAS, false },
	{ "linux-2.6.38+no-hot-affine", &sr_srqf_2638_ops, SR_KV3(2, 6, 38),
	  SR_F_AFFINE_WAKEUPS | SR_F_LB_BIAS | SR_F_NO_HOT_AFFINE, true },
	{ "linux-2.6.38+hot-imbalance", &sr_srqf_2638_ops, SR_KV3(2, 6, 38),
	  SR_F_AFFINE_WAKEUPS | SR_F_LB_BIAS | SR_F_HOT_IMBALANCE, true },
	{ "linux-4.14", &sr_srqf_414_ops, SR_KV(4, 14),
	  WA | SR_F_SIS_PROP | SR_F_TTWU_QUEUE | SR_F_LB_BIAS, false },
	{ "linux-4.19", &sr_srqf_414_ops, SR_KV(4, 19),
	  WA | SR_F_SIS_PROP | SR_F_TTWU_QUEUE | SR_F_LB_BIAS, false },
	{ "linux-5.4", &sr_srqf_414_ops, SR_KV(5, 4), F54, false },
	{ "linux-5.10", &sr_srqf_414_ops, SR_KV(5, 10), F54, false },
	{ "linux-5.11", &sr_srqf_414_ops, SR_KV(5, 11), F54, false },
	{ "linux-5.12", &sr_srqf_414_ops, SR_KV(5, 12), F54, false },
	{ "linux-5.12+sis-smt-weight", &sr_srqf_414_ops, SR_KV(5, 12),
	  WA | SR_F_SIS_PROP | SR_F_TTWU_QUEUE | SR_F_SIS_SMT_WEIGHT, true },
	{ "linux-5.15", &sr_srqf_414_ops, SR_KV(5, 15), F54, false },
	{ "linux-5.16+wakee-heavy", &sr_srqf_414_ops, SR_KV(5, 16),
	  WA | SR_F_SIS_PROP | SR_F_TTWU_QUEUE | SR_F_WAKEE_HEAVY, true },
	{ "linux-6.0", &sr_srqf_414_ops, SR_KV(6, 0), WA | SR_F_SIS_UTIL | SR_F_TTWU_QUEUE, false },
	{ "linux-6.1", &sr_srqf_414_ops, SR_KV(6, 1), WA | SR_F_SIS_UTIL | SR_F_TTWU_QUEUE, false },
	{ "linux-6.6", &sr_srqf_414_ops, SR_KV(6, 6), WA | SR_F_SIS_UTIL | SR_F_TTWU_QUEUE, false },
	{ "linux-6.8", &sr_srqf_414_ops, SR_KV(6, 8), WA | SR_F_SIS_UTIL | SR_F_TTWU_QUEUE, false },
	{ "linux-6.12", &sr_srqf_414_ops, SR_KV(6, 12), WA | SR_F_SIS_UTIL | SR_F_TTWU_QUEUE,
	  false },
	{ "linux-6.18", &sr_srqf_414_ops, SR_KV(6, 18), WA | SR_F_SIS_UTIL | SR_F_TTWU_QUEUE,
	  false },
	{ "naive-prev", &sr_naive_prev_ops, 0, 0, true },
	{ "naive-waker", &sr_naive_waker_ops, 0, 0, true },
	{ "naive-idle-first", &sr_naive_idle_first_ops, 0, 0, true },
};

/* Every preset the project needs, with its kernel's features.h defaults. */
static void test_presets_table(void **state)
{
	assert_int_equal(sr_preset_count(), SR_ARRAY_SIZE(expect));
	for (size_t i = 0; i < SR_ARRAY_SIZE(expect); i++) {
		const struct sr_preset *p = sr_preset_find(expect[i].name);

		assert_non_null(p);
		assert_ptr_equal(p, sr_preset_at(i));
		assert_ptr_equal(p->ops, expect[i].ops);
		assert_int_equal(p->knobs.kver, expect[i].kver);
		assert_int_equal(p->knobs.features, expect[i].features);
		assert_int_equal(p->patched, expect[i].patched);
		assert_int_equal(p->knobs.migration_cost_ns, 500000);
		assert_int_equal(p->knobs.sis_min_loops, 2);
		assert_int_equal(p->knobs.hot_imbalance_pct, 150);
		assert_int_equal(p->knobs.sis_avg_scan_cost_ns, 2000);
		/* baselines (kver 0) model no kernel: no autogroup */
		assert_int_equal(p->knobs.autogroup, p->knobs.kver > SR_KV3(2, 6, 37));
		assert_true(p->kernel_range[0] && p->parts[0] && p->description[0]);
	}
	assert_null(sr_preset_at(SR_ARRAY_SIZE(expect)));
	assert_null(sr_preset_find("linux-6.2"));
	assert_null(sr_preset_find(NULL));
	assert_true(SR_KV3(2, 6, 37) < SR_KV3(2, 6, 38) && SR_KV3(2, 6, 38) < SR_KV(3, 0));
}

/* A preset sets only features its kernel has; every feature bit has a knob. */
static void test_knob_table(void **state)
{
	for (size_t i = 0; i < sr_preset_count(); i++) {
		const struct sr_preset *p = sr_preset_at(i);

		for (size_t k = 0; k < sr_knob_count(); k++) {
			const struct sr_knob_desc *kd = sr_knob_at(k);
			int64_t v;

			assert_int_equal(sr_knob_get(&p->knobs, kd, &v), 0);
			if (kd->kind == SR_KNOB_FEATURE && v)
				assert_true(sr_knob_applies(kd, p->knobs.kver));
		}
	}
	for (unsigned int bit = SR_F_WA_IDLE; bit <= SR_F_AFFINE_WAKEUPS; bit <<= 1) {
		bool found = false;

		for (size_t k = 0; k < sr_knob_count(); k++)
			found |= sr_knob_at(k)->kind == SR_KNOB_FEATURE &&
				 sr_knob_at(k)->feature == bit;
		assert_true(found);
	}
	for (size_t a = 0; a < sr_knob_count(); a++)
		assert_ptr_equal(sr_knob_find(sr_knob_at(a)->name), sr_knob_at(a));
	assert_null(sr_knob_at(sr_knob_count()));
	assert_null(sr_knob_find("WA_bias"));
	assert_true(sr_knob_applies(sr_knob_find("SIS_PROP"), SR_KV(6, 6)));
	assert_false(sr_knob_applies(sr_knob_find("SIS_PROP"), SR_KV(6, 8)));
	assert_false(sr_knob_applies(sr_knob_find("WA_BIAS"), SR_KV3(2, 6, 38)));
	assert_false(sr_knob_applies(NULL, SR_KV(6, 1)));
}

static void test_knob_get(void **state)
{
	const struct sr_preset *p = sr_preset_find("linux-2.6.38+hot-imbalance");
	int64_t v = -5;

	assert_int_equal(sr_knob_get(&p->knobs, sr_knob_find("hot_imbalance_pct"), &v), 0);
	assert_int_equal(v, 150);
	assert_int_equal(sr_knob_get(&p->knobs, sr_knob_find("HOT_IMBALANCE"), &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(sr_knob_get(&p->knobs, sr_knob_find("migration_cost"), &v), 0);
	assert_int_equal(v, 500000);
	assert_int_equal(sr_knob_get(&p->knobs, sr_knob_find("autogroup"), &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(sr_knob_get(&p->knobs, NULL, &v), -EINVAL);
	assert_int_equal(sr_knob_get(NULL, sr_knob_find("autogroup"), &v), -EINVAL);
}

/* The documented example, and the integer fields of each width. */
static void test_spec_overrides(void **state)
{
	struct sr_policy pol;

	assert_int_equal(sr_policy_from_spec(&pol, "linux-6.1:WA_BIAS=0,migration_cost=250000"),
			 0);
	/* the label keeps the overrides: two variants of one preset stay apart */
	assert_string_equal(pol.name, "linux-6.1:WA_BIAS=0,migration_cost=250000");
	assert_string_equal(pol.preset, "linux-6.1");
	assert_string_equal(pol.kernel_range, "6.1-6.5");
	assert_ptr_equal(pol.ops, &sr_srqf_414_ops);
	assert_int_equal(pol.knobs.kver, SR_KV(6, 1));
	assert_int_equal(pol.knobs.features, SR_F_WA_IDLE | SR_F_WA_WEIGHT | SR_F_SIS_UTIL |
			 SR_F_TTWU_QUEUE);
	assert_int_equal(pol.knobs.migration_cost_ns, 250000);

	assert_int_equal(sr_policy_from_spec(&pol, "linux-2.6.38:HOT_IMBALANCE=1,"
					     "hot_imbalance_pct=200,autogroup=0,migration_cost=-1"),
			 0);
	assert_true(pol.knobs.features & SR_F_HOT_IMBALANCE);
	assert_int_equal(pol.knobs.hot_imbalance_pct, 200);
	assert_false(pol.knobs.autogroup);
	assert_int_equal(pol.knobs.migration_cost_ns, -1);
	assert_ptr_equal(pol.ops, &sr_srqf_2638_ops);

	assert_int_equal(sr_policy_from_spec(&pol, "linux-5.12:SIS_SMT_WEIGHT=1,sis_min_loops=4,"
					     "sis_avg_scan_cost=20000,WA_IDLE=0,WA_IDLE=1"), 0);
	assert_int_equal(pol.knobs.features, sr_preset_find("linux-5.12+sis-smt-weight")->
			 knobs.features);
	assert_int_equal(pol.knobs.sis_min_loops, 4);
	assert_int_equal(pol.knobs.sis_avg_scan_cost_ns, 20000);
	/* A patch knob on another kernel of the family is a valid experiment. */
	assert_int_equal(sr_policy_from_spec(&pol, "linux-6.12:WAKEE_HEAVY=1"), 0);
	assert_true(pol.knobs.features & SR_F_WAKEE_HEAVY);
	assert_int_equal(sr_policy_from_spec(&pol, "linux-6.6:SIS_PROP=1"), 0);
}

/* Anything wrong is -EINVAL and leaves the policy as it was. */
static void test_spec_errors(void **state)
{
	static const char *const bad[] = {
		"", "linux-", "linux-foo", "bogus", "linux-4.9", "4.13.9", "2.6.36", "3.1",
		"linux-6.1:", "linux-6.1:WA_BIAS=0,", "linux-6.1:,WA_BIAS=0", "linux-6.1:WA_BIAS",
		"linux-6.1:WA_BIAS=", "linux-6.1:=1", "linux-6.1:WA_BIAS=2", "linux-6.1:WA_BIAS=-1",
		"linux-6.1:WA_BIAS=x", "linux-6.1:WA_BIAS=1x", "linux-6.1:FOO=1",
		"linux-6.1:wa_bias=1", "linux-6.1:migration_cost=-2",
		"linux-6.1:migration_cost=99999999999999999999", "linux-6.1:migration_cost=1e3",
		"linux-4.14:SIS_UTIL=1", "linux-6.8:SIS_PROP=1", "linux-2.6.38:WA_BIAS=0",
		"linux-2.6.37:NO_HOT_AFFINE=1", "linux-6.1:hot_imbalance_pct=150",
		"linux-2.6.38:hot_imbalance_pct=99", "linux-5.15:sis_min_loops=0",
		"linux-2.6.37:autogroup=1", "linux-6.1:autogroup=2",
		"linux-5.16+wakee-heavy:LB_BIAS=1", "6.8.1:SIS_PROP=1",
	};
	struct sr_policy pol, keep;
	char big[600];

	memset(&pol, 0x5a, sizeof(pol));
	keep = pol;
	for (size_t i = 0; i < SR_ARRAY_SIZE(bad); i++) {
		if (sr_policy_from_spec(&pol, bad[i]) != -EINVAL)
			fail_msg("spec \"%s\" accepted", bad[i]);
		assert_memory_equal(&pol, &keep, sizeof(pol));
	}
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(sr_policy_from_spec(&pol, big), -EINVAL);
	assert_int_equal(sr_policy_from_spec(NULL, "linux-6.1"), -EINVAL);
	assert_int_equal(sr_policy_from_spec(&pol, NULL), -EINVAL);
}

/* Each kind of mistake gets its own message. */
static void test_spec_messages(void **state)
{
	static const struct {
		const char *spec, *says;
	} v[] = {
		{ "linux-foo", "unknown policy 'linux-foo'" },
		{ "linux-6.1:FOO=1", "unknown knob 'FOO'" },
		{ "linux-6.1:WA_BIAS=2", "knob WA_BIAS takes 0..1, not '2'" },
		{ "linux-6.1:WA_BIAS=x", "knob WA_BIAS takes 0..1, not 'x'" },
		{ "linux-6.8:SIS_PROP=1", "knob SIS_PROP does not exist" },
		{ "linux-6.1:WA_BIAS", "'WA_BIAS' is not KNOB=VALUE" },
	};
	struct sr_policy pol;

	for (size_t i = 0; i < SR_ARRAY_SIZE(v); i++) {
		struct sr_err err = { "" };

		assert_int_equal(sr_policy_parse(&pol, v[i].spec, &err), -EINVAL);
		if (!strstr(err.msg, v[i].says))
			fail_msg("%s: \"%s\" does not say \"%s\"", v[i].spec, err.msg, v[i].says);
	}
}

/* A bare release: nearest unpatched preset at or below, kver of the release. */
static void test_spec_release(void **state)
{
	static const struct {
		const char *spec, *name, *preset;
		unsigned int kver;
	} v[] = {
		{ "6.1.12", "linux-6.1", "linux-6.1", SR_KV(6, 1) },
		{ "6.1.0-27-amd64", "linux-6.1", "linux-6.1", SR_KV(6, 1) },
		{ "6.3.1", "linux-6.3", "linux-6.1", SR_KV(6, 3) },
		{ "linux-6.3", "linux-6.3", "linux-6.1", SR_KV(6, 3) },
		{ "4.17.3", "linux-4.17", "linux-4.14", SR_KV(4, 17) },
		{ "5.16.2", "linux-5.16", "linux-5.15", SR_KV(5, 16) },
		{ "5.12.1", "linux-5.12", "linux-5.12", SR_KV(5, 12) },
		{ "6.18.44-fc-v782", "linux-6.18", "linux-6.18", SR_KV(6, 18) },
		{ "7.0", "linux-7.0", "linux-6.18", SR_KV(7, 0) },
		{ "2.6.38-rc1", "linux-2.6.38", "linux-2.6.38", SR_KV3(2, 6, 38) },
		{ "2.6.38.8", "linux-2.6.38", "linux-2.6.38", SR_KV3(2, 6, 38) },
		{ "3.0.101", "linux-3.0", "linux-2.6.38", SR_KV(3, 0) },
		{ "2.6.37.6", "linux-2.6.37", "linux-2.6.37", SR_KV3(2, 6, 37) },
	};
	struct sr_policy pol;

	for (size_t i = 0; i < SR_ARRAY_SIZE(v); i++) {
		const struct sr_preset *p = sr_preset_find(v[i].preset);

		assert_int_equal(sr_policy_from_spec(&pol, v[i].spec), 0);
		assert_string_equal(pol.name, v[i].name);
		assert_int_equal(pol.knobs.kver, v[i].kver);
		assert_int_equal(pol.knobs.features, p->knobs.features);
		assert_ptr_equal(pol.ops, p->ops);
		assert_string_equal(pol.kernel_range, p->kernel_range);
	}
	assert_int_equal(sr_policy_from_spec(&pol, "6.1.12:WA_BIAS=0"), 0);
	assert_false(pol.knobs.features & SR_F_WA_BIAS);
	/* A release keeps its kver for knob ranges: SIS_PROP is gone by 6.7. */
	assert_int_equal(sr_policy_from_spec(&pol, "6.6.30:SIS_PROP=1"), 0);
	assert_int_equal(sr_policy_from_spec(&pol, "6.7.2:SIS_PROP=1"), -EINVAL);
}

static void test_preset_for_release(void **state)
{
	static const struct { const char *rel, *preset; } v[] = {
		{ "6.18.44-fc-v782", "linux-6.18" }, { "2.6.38-rc1", "linux-2.6.38" },
		{ "2.6.37.6", "linux-2.6.37" }, { "2.6.39.4", "linux-2.6.38" },
		{ "3.0.101", "linux-2.6.38" }, { "4.14.177", "linux-4.14" },
		{ "4.18.0-553.el8_10.x86_64", "linux-4.14" }, { "5.3.18", "linux-4.19" },
		{ "5.9.1", "linux-5.4" }, { "5.10.0-32-amd64", "linux-5.10" },
		{ "5.16.0", "linux-5.15" }, { "5.19.17", "linux-5.15" }, { "6.0.1", "linux-6.0" },
		{ "6.7.1", "linux-6.6" }, { "6.11.0", "linux-6.8" },
		{ "6.17.9+deb13", "linux-6.12" },
		{ "6.1", "linux-6.1" }, { "6.1x", "linux-6.1" }, { "7.3.0", "linux-6.18" },
	};
	static const char *const none[] = {
		"2.6.36.4", "2.4.37", "3.1.10", "3.10.105", "4.13.9", "abc", "", "6", "6.",
		"v6.1", "6..1", "1234.1", "6.256", "6.1234", "2.6", "2.6.x", "1.2.3",
		"99999999999999999999.1", "6.99999999999999999999", "2.6.99999999999999999999",
	};

	for (size_t i = 0; i < SR_ARRAY_SIZE(v); i++) {
		const char *got = sr_preset_for_release(v[i].rel);

		if (!got || strcmp(got, v[i].preset))
			fail_msg("%s -> %s, want %s", v[i].rel, got ? got : "NULL", v[i].preset);
	}
	for (size_t i = 0; i < SR_ARRAY_SIZE(none); i++)
		if (sr_preset_for_release(none[i]))
			fail_msg("%s mapped to %s", none[i], sr_preset_for_release(none[i]));
	assert_null(sr_preset_for_release(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets_table),
		cmocka_unit_test(test_knob_table),
		cmocka_unit_test(test_knob_get),
		cmocka_unit_test(test_spec_overrides),
		cmocka_unit_test(test_spec_errors),
		cmocka_unit_test(test_spec_messages),
		cmocka_unit_test(test_spec_release),
		cmocka_unit_test(test_preset_for_release),
	};

	return cmocka_run_group_tests_name("presets", tests, NULL, NULL);
}
