// SPDX-License-Identifier: GPL-2.0
/* Topology spec parsing and derived sched-domain levels. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include "topology.h"

static void test_two_sockets_smt(void **state)
{
	struct sr_topo t;

	assert_int_equal(sr_topo_from_spec(&t, "sockets=2,cores-per-llc=4,threads=2",
					   SR_ERA_511), 0);
	assert_int_equal(t.nr_cpus, 16);
	assert_int_equal(t.nr_nodes, 2);
	/* QEMU numbering: 0,1 are siblings; 0-7 one socket/LLC/node. */
	assert_true(sr_mask_test(&t.cpu[0].smt, 1));
	assert_false(sr_mask_test(&t.cpu[0].smt, 2));
	assert_true(sr_cpus_share_cache(&t, 0, 7));
	assert_false(sr_cpus_share_cache(&t, 7, 8));
	assert_int_equal(t.cpu[9].llc_id, 8);
	assert_int_equal(t.cpu[9].node, 1);
	/* SMT, MC, NUMA: DIE degenerates into MC (one LLC per socket). */
	assert_int_equal(t.cpu[3].nr_levels, 3);
	assert_string_equal(t.cpu[3].sd[0].name, "SMT");
	assert_int_equal(t.cpu[3].sd[0].imbalance_pct, 110);
	assert_string_equal(t.cpu[3].sd[1].name, "MC");
	assert_int_equal(t.cpu[3].sd[1].span_weight, 8);
	assert_int_equal(t.cpu[3].sd[1].imbalance_pct, 117);
	assert_string_equal(t.cpu[3].sd[2].name, "NUMA");
	assert_true(t.cpu[3].sd[2].flags & SD_WAKE_AFFINE);
	assert_ptr_equal(sr_highest_flag_domain(&t, 3, SD_SHARE_PKG_RESOURCES), &t.cpu[3].sd[1]);
	assert_int_equal(sr_llc_size(&t, 3), 8);
	sr_topo_free(&t);
}

static void test_two_llcs_one_node_old_era(void **state)
{
	struct sr_topo t;

	assert_int_equal(sr_topo_from_spec(&t, "llcs-per-socket=2,cores-per-llc=2,threads=2,"
					   "smt-numbering=split", SR_ERA_2637), 0);
	assert_int_equal(t.nr_cpus, 8);
	/* split numbering: cpu n and n+4 are siblings */
	assert_true(sr_mask_test(&t.cpu[1].smt, 5));
	assert_true(sr_cpus_share_cache(&t, 0, 5));
	assert_false(sr_cpus_share_cache(&t, 0, 2));
	assert_int_equal(t.cpu[0].nr_levels, 3);
	assert_string_equal(t.cpu[0].sd[2].name, "DIE");
	assert_int_equal(t.cpu[0].sd[1].imbalance_pct, 125);
	assert_int_equal(t.cpu[0].sd[2].imbalance_pct, 125);
	sr_topo_free(&t);
}

static void test_far_numa_and_flat(void **state)
{
	struct sr_topo t;

	assert_int_equal(sr_topo_from_spec(&t, "sockets=2,cores-per-llc=2,numa-distance=40",
					   SR_ERA_316), 0);
	assert_int_equal(t.cpu[0].nr_levels, 2);
	assert_false(t.cpu[0].sd[1].flags & SD_WAKE_AFFINE);
	assert_int_equal(t.node_distance[0][1], 40);
	sr_topo_free(&t);

	assert_int_equal(sr_topo_flat(&t, 2, SR_ERA_511), 0);
	assert_int_equal(t.source, SR_TOPO_ASSUMED_FLAT);
	assert_int_equal(t.cpu[1].nr_levels, 1);
	assert_string_equal(t.cpu[1].sd[0].name, "MC");
	sr_topo_free(&t);
}

static void test_bad_specs(void **state)
{
	struct sr_topo t;

	assert_int_equal(sr_topo_from_spec(&t, "sockets=0", SR_ERA_511), -EINVAL);
	assert_int_equal(sr_topo_from_spec(&t, "bogus=3", SR_ERA_511), -EINVAL);
	assert_int_equal(sr_topo_from_spec(&t, "sockets=2,nodes=3", SR_ERA_511), -EINVAL);
	assert_int_equal(sr_topo_from_spec(&t, "threads=x", SR_ERA_511), -EINVAL);
	assert_int_equal(sr_topo_from_spec(&t, "sockets", SR_ERA_511), -EINVAL);
	assert_int_equal(sr_topo_from_spec(&t, "cpus=4,threads=2", SR_ERA_511), -EINVAL);
	assert_int_equal(sr_topo_flat(&t, 0, SR_ERA_511), -EINVAL);
}

/* Masks read only their words below nw; the wrap walk is for_each_cpu_wrap()'s order. */
static void test_masks(void **state)
{
	struct sr_cpumask m, o;
	int order[8], n = 0, c;

	memset(&m, 0xff, sizeof(m));	/* garbage above nw is never read */
	sr_mask_clear(&m);
	assert_int_equal(sr_mask_first(&m), -1);
	assert_int_equal(sr_mask_weight(&m), 0);
	sr_mask_set(&m, 3);
	sr_mask_set(&m, 130);
	sr_mask_set(&m, 70);
	assert_int_equal(m.nw, 3);
	assert_false(sr_mask_test(&m, 64));
	assert_false(sr_mask_test(&m, 4000));
	assert_int_equal(sr_mask_weight(&m), 3);
	sr_for_each_cpu_wrap(c, &m, 70)
		order[n++] = c;
	assert_int_equal(n, 3);
	assert_int_equal(order[0], 70);
	assert_int_equal(order[1], 130);
	assert_int_equal(order[2], 3);
	n = 0;
	sr_for_each_cpu_wrap(c, &m, 4)
		order[n++] = c;
	assert_int_equal(n, 3);
	assert_int_equal(order[2], 3);
	memset(&o, 0xff, sizeof(o));
	sr_mask_clear(&o);
	sr_mask_set(&o, 3);
	assert_true(sr_mask_subset(&o, &m));
	assert_false(sr_mask_subset(&m, &o));
	sr_mask_or(&o, &m);
	assert_true(sr_mask_equal(&o, &m));
	sr_mask_unset(&m, 130);
	assert_false(sr_mask_equal(&o, &m));
	sr_mask_and(&o, &m);
	assert_true(sr_mask_equal(&o, &m));
	assert_int_equal(sr_mask_next(&o, 71), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_sockets_smt),
		cmocka_unit_test(test_two_llcs_one_node_old_era),
		cmocka_unit_test(test_far_numa_and_flat),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_masks),
	};

	return cmocka_run_group_tests_name("topology", tests, NULL, NULL);
}
