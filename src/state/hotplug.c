// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug, from the cpuhp:cpuhp_enter / cpuhp_exit events a trace may
 * hold: which CPUs cpu_active_mask and cpu_online_mask lack, which
 * select_task_rq() reads through is_cpu_allowed() (replay/policy.c).
 *
 * The events name the steps by their number in enum cpuhp_state
 * (include/linux/cpuhotplug.h), which every release renumbers; only its
 * order holds: CPUHP_AP_ACTIVE is always CPUHP_ONLINE - 1, the highest
 * state a CPU reaches.  So CPUHP_ONLINE is read off the trace: a teardown's
 * first event, cpuhp_kick_ap_work()'s on the control CPU, gives an online
 * CPU's state as its step, and a bring-up targets it.
 *
 *  - sched_cpu_deactivate(), CPUHP_AP_ACTIVE's teardown, starts with
 *    set_cpu_active(cpu, false) (kernel/sched/core.c, 5.11 - 6.18);
 *    sched_cpu_activate(), its startup, sets it again.
 *  - The hotplug thread tears the CPU down to the state it was kicked to
 *    (CPUHP_TEARDOWN_CPU); the control CPU's own step there,
 *    takedown_cpu(), runs __cpu_disable() (set_cpu_online(cpu, false)) in
 *    stop_machine and returns once the CPU is dead.
 *
 * The sched domains are not rebuilt here: before 6.10 cpuset_cpu_inactive()
 * leaves that to a work item (cpuset_hotplug_workfn(), which waits for the
 * hotplug lock: after the whole hotplug), synchronous only from 2125c0034c5d
 * ("cgroup/cpuset: Make cpuset hotplug processing synchronous", 6.10).
 */
#include "state-priv.h"

static void cpuhp_enter(struct sr_state *s, const struct sr_event *ev, int cpu)
{
	bool down = ev->hp_state < ev->hp_step;

	if (down && ev->cpu != cpu && ev->hp_step == s->cpuhp_online)
		s->cpu[cpu].hp_kick_target = ev->hp_state;	/* cpuhp_kick_ap_work() */
	if (!down)
		sr_mask_unset(&s->offline, cpu);	/* bringing it up: online before any AP step */
	if (ev->hp_step != s->cpuhp_online - 1)
		return;
	if (down) {
		sr_mask_set(&s->inactive, cpu);		/* sched_cpu_deactivate() */
		s->hotplugged = true;
	} else {
		sr_mask_unset(&s->inactive, cpu);	/* sched_cpu_activate() */
	}
}

static void cpuhp_exit(struct sr_state *s, const struct sr_event *ev, int cpu)
{
	/* takedown_cpu() returned on the control CPU: the CPU is dead */
	if (ev->hp_state < ev->hp_step && ev->cpu != cpu &&
	    ev->hp_step == s->cpu[cpu].hp_kick_target) {
		sr_mask_set(&s->offline, cpu);
		s->cpu[cpu].hp_kick_target = 0;
	}
}

void sr_st_on_cpuhp(struct sr_state *s, const struct sr_event *ev)
{
	int cpu = ev->hp_cpu;

	if (!sr_st_cpu_ok(s, cpu) || ev->hp_step < 0 || ev->hp_state < 0)
		return;
	if (ev->hp_step > s->cpuhp_online)
		s->cpuhp_online = ev->hp_step;
	if (ev->type == SR_EV_CPUHP_ENTER && ev->hp_state > s->cpuhp_online)
		s->cpuhp_online = ev->hp_state;		/* a bring-up's target */
	if (ev->type == SR_EV_CPUHP_ENTER)
		cpuhp_enter(s, ev, cpu);
	else
		cpuhp_exit(s, ev, cpu);
}
