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
void     bench_write_all       (int          fd,
                                const void  *data,
                                gsize        size);
gboolean bench_read_all        (int     fd,
                                void   *data,
                                gsize   size);
/* Raises the soft limit of file descriptors to the hard one. */
void     bench_raise_fd_limit  (void);

/* A process that exits when told to, after writing the time into shared
 * memory. As a child of the benchmark, or as a grandchild whose parent
 * reaps it at once. */
typedef struct
{
  GPid pid;
  GPid parent;      /* the intermediate parent, or 0 for a child */
  int control_fd;   /* one byte: exit now */
  gboolean reaped;  /* by a peer under test (g_child_watch, waitpid) */
} BenchTarget;

void     bench_target_spawn    (BenchTarget *target,
                                gboolean     child);
/* Tells the target to exit; returns at once. */
void     bench_target_trigger  (BenchTarget *target);
/* The time the target stamped just before _exit(), or 0. */
gint64   bench_target_exit_ns  (void);
/* Reaps what is left of the target. */
void     bench_target_finish   (BenchTarget *target);

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
void     bench_sleepers_kill   (BenchSleepers *sleepers);
/* Ends the sleepers (if not killed yet) and waits until all are reaped. */
void     bench_sleepers_finish (BenchSleepers *sleepers);

G_END_DECLS
