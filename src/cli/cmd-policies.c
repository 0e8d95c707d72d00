// SPDX-License-Identifier: GPL-2.0
/* schedreplay policies: every preset with its kernel range, parts and knobs. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "cli.h"
#include "policy.h"

static json_t *knobs_json(const struct sr_preset *p)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < sr_knob_count(); i++) {
		const struct sr_knob_desc *k = sr_knob_at(i);
		int64_t v;

		if (!sr_knob_applies(k, p->knobs.kver) || sr_knob_get(&p->knobs, k, &v))
			continue;
		json_object_set_new(o, k->name, json_integer(v));
	}
	return o;
}

static json_t *presets_json(void)
{
	json_t *presets = json_array(), *knobs = json_array();

	for (size_t i = 0; presets && i < sr_preset_count(); i++) {
		const struct sr_preset *p = sr_preset_at(i);

		json_array_append_new(presets, json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:o}",
			"name", p->name, "kernel_range", p->kernel_range, "parts", p->parts,
			"description", p->description, "patched", p->patched,
			"model", p->ops->name, "knobs", knobs_json(p)));
	}
	for (size_t i = 0; knobs && i < sr_knob_count(); i++) {
		const struct sr_knob_desc *k = sr_knob_at(i);

		json_array_append_new(knobs, json_pack("{s:s, s:s, s:I, s:I, s:s}",
			"name", k->name, "kind", k->kind == SR_KNOB_FEATURE ? "feature" : "integer",
			"min", (json_int_t)k->min, "max", (json_int_t)k->max,
			"description", k->description));
	}
	return json_pack("{s:s, s:o, s:o, s:s}", "schema", "schedreplay-policies/1",
			 "presets", presets, "knobs", knobs,
			 "override_syntax", "NAME[:KNOB=VALUE,...]");
}

static void print_text(void)
{
	printf("Presets (use as --policy NAME[:KNOB=VALUE,...]):\n\n");
	for (size_t i = 0; i < sr_preset_count(); i++) {
		const struct sr_preset *p = sr_preset_at(i);

		printf("%-28s %-12s %s\n", p->name, p->kernel_range, p->description);
		printf("%-28s %-12s parts: %s\n", "", "", p->parts);
		printf("%-28s %-12s knobs:", "", "");
		for (size_t k = 0; k < sr_knob_count(); k++) {
			const struct sr_knob_desc *kd = sr_knob_at(k);
			int64_t v;

			if (sr_knob_applies(kd, p->knobs.kver) && !sr_knob_get(&p->knobs, kd, &v))
				printf(" %s=%" PRId64, kd->name, v);
		}
		printf("\n");
	}
	printf("\nKnobs:\n");
	for (size_t k = 0; k < sr_knob_count(); k++) {
		const struct sr_knob_desc *kd = sr_knob_at(k);

		printf("  %-22s %s\n", kd->name, kd->description);
	}
}

int sr_cmd_policies(const struct sr_cli *cli, int argc, char **argv)
{
	bool json = cli->json;
	json_t *o;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: schedreplay policies [--json]\n\n"
			       "List every placement-model preset: kernel range, model parts, knobs.\n");
			return SR_EXIT_OK;
		} else {
			return sr_cli_error(cli, SR_EXIT_BAD_INPUT, "policies: bad argument '%s'",
					    argv[i]);
		}
	}
	if (!json) {
		print_text();
		return SR_EXIT_OK;
	}
	o = presets_json();
	if (!o)
		return sr_cli_error(cli, SR_EXIT_FAIL, "out of memory");
	json_dumpf(o, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(o);
	return SR_EXIT_OK;
}
