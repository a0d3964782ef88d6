/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Processes for the benchmarks: targets that stamp the time just before they
 * exit, and crowds of cheap sleeping processes held by a parent that reaps
 * them at once.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* CLOCK_MONOTONIC in nanoseconds: the same clock in every process. */
gint64   bench_now_ns          (void);
int      bench_pidfd_open      (GPid     pid);
/* Raises the soft limit of file descriptors to the hard one. */
void     bench_raise_fd_limit  (void);

/* A process that exits when told to and reports the time just before its
 * _exit(). As a child of the benchmark, or as a grandchild whose parent
 * reaps it at once. */
typedef struct
{
  GPid pid;
  GPid parent;      /* the intermediate parent, or 0 for a child */
  int control_fd;   /* one byte: exit now */
  int report_fd;    /* the target's pid, then its exit time */
  gint64 exit_ns;   /* known after bench_target_finish() */
  gboolean reaped;  /* by a peer under test (g_child_watch, waitpid) */
} BenchTarget;

void     bench_target_spawn    (BenchTarget *target,
                                gboolean     child);
/* Tells the target to exit; returns at once. */
void     bench_target_trigger  (BenchTarget *target);
/* Reads the target's exit time (0 if it has none) and reaps what is left. */
void     bench_target_finish   (BenchTarget *target);

/* Runs a helper role of procwatch-bench (argv[1]) in a spawned process. */
int      bench_run_role        (const char  *role,
                                const char  *argument);

/* @n sleeping processes in one process group, children of an intermediate
 * parent that reaps each at once. */
typedef struct
{
  GPid spawner;
  GPid group;
  GArray *pids;     /* GPid */
  int release_fd;   /* closing it lets every sleeper exit */
} BenchSleepers;

gboolean bench_sleepers_spawn  (BenchSleepers *sleepers,
                                guint          n);
/* The same from @program, which forks them as the "spawner" role does
 * (procwatch-bench-sleepers: cheaper processes, for the scale row). */
gboolean bench_sleepers_spawn_program (BenchSleepers *sleepers,
                                       guint          n,
                                       const char    *program);
void     bench_sleepers_kill   (BenchSleepers *sleepers);
/* Ends the sleepers (if not killed yet) and waits until all are reaped. */
void     bench_sleepers_finish (BenchSleepers *sleepers);

G_END_DECLS
