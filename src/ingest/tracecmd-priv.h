/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to src/ingest: functions exported by libtracecmd.so.1 (1.3) but
 * declared only in the library's private header trace-cmd-private.h.  The
 * reader uses the getters, the writer the output and recorder API; nothing
 * outside this folder calls libtracecmd directly.
 */
#ifndef SR_TRACECMD_PRIV_H
#define SR_TRACECMD_PRIV_H

#include <stdbool.h>
#include <sys/types.h>
#include <trace-cmd/trace-cmd.h>
#include <tracefs.h>

/* reading */
const char *tracecmd_get_uname(struct tracecmd_input *handle);
int tracecmd_set_cpu_to_timestamp(struct tracecmd_input *handle, int cpu, unsigned long long ts);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);
off_t tracecmd_get_cpu_file_size(struct tracecmd_input *handle, int cpu);
unsigned long tracecmd_get_flags(struct tracecmd_input *handle);
struct tep_record *tracecmd_peek_data(struct tracecmd_input *handle, int cpu);
/* enum tracecmd_flags: timestamps were converted to ns (x86-tsc with TSC2NSEC) */
#define SR_TRACECMD_FL_IN_USECS	(1 << 2)
/* ... the file's sections (and so its CPU data) are compressed */
#define SR_TRACECMD_FL_COMPRESSION	(1 << 5)

/* writing */
struct tracecmd_output;
struct tracecmd_recorder;
/* trace-cmd-private.h: a glob of the event formats write_headers stores */
struct tracecmd_event_list {
	struct tracecmd_event_list *next;
	const char *glob;
};
struct tracecmd_option;
struct tracecmd_output *tracecmd_output_create(const char *output_file);
int tracecmd_output_set_compression(struct tracecmd_output *handle, const char *compression);
int tracecmd_output_write_headers(struct tracecmd_output *handle,
				  struct tracecmd_event_list *list);
void tracecmd_set_quiet(struct tracecmd_output *handle, bool set_quiet);
/* The file write_headers reads as kallsyms (an empty one stores none). */
int tracecmd_output_set_kallsyms(struct tracecmd_output *handle, const char *kallsyms);
void tracecmd_set_out_clock(struct tracecmd_output *handle, const char *clock);
struct tracecmd_option *tracecmd_add_option(struct tracecmd_output *handle,
					    unsigned short id, int size, const void *data);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
int tracecmd_append_cpu_data(struct tracecmd_output *handle, int cpus,
			     char * const *cpu_data_files);
void tracecmd_output_close(struct tracecmd_output *handle);
struct tracecmd_recorder *tracecmd_create_buffer_recorder(const char *file, int cpu,
							  unsigned int flags,
							  struct tracefs_instance *instance);
long tracecmd_flush_recording(struct tracecmd_recorder *recorder, bool finish);
int tracecmd_start_recording(struct tracecmd_recorder *recorder, unsigned long sleep);
int tracecmd_stop_recording(struct tracecmd_recorder *recorder);
int tracecmd_output_set_kallsyms(struct tracecmd_output *handle, const char *kallsyms);
void tracecmd_free_recorder(struct tracecmd_recorder *recorder);

/* trace.dat option ids: part of the file format (trace-cmd.dat(5)). */
enum { SR_TDAT_CPUSTAT = 2, SR_TDAT_TRACECLOCK = 4, SR_TDAT_UNAME = 5, SR_TDAT_VERSION = 9 };

#endif /* SR_TRACECMD_PRIV_H */
