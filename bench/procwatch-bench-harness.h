/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * What the measurements of procwatch-bench share (procwatch-bench-harness.c),
 * and the entry point of each measurement, one file each, for main () in
 * procwatch-bench.c. Each entry point returns the process's exit status.
 */

#pragma once

#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <gio-procwatch/procwatch.h>
#include <glib-unix.h>

#include "procwatch-bench-procs.h"
#include "procwatch-io.h"

G_BEGIN_DECLS

/* One epoll_wait () of the floor peers takes at most this many events. */
#define EPOLL_BATCH 256

/* Options shared by the subcommands, set by main (). */
extern int opt_rounds;
extern int opt_n;
extern int opt_iters;
extern int opt_blocks;
extern char *opt_peers;
extern char *opt_layouts;
extern char *opt_sizes;
extern char *opt_label;
extern char *opt_expect_backend;
extern char *opt_psutil_script;
extern char *opt_python;
extern char *opt_mode;
extern char *opt_out;
extern char *opt_valgrind;
extern char *opt_shim;
extern int opt_fd_base;
extern int opt_ctl_fd;
extern int opt_max_delay_us;
extern gboolean opt_delay_in_loop;
extern gboolean opt_reaped;
extern char *opt_sleepers;
extern gboolean opt_drop_caches;

/* Output: one JSON object per line, flushed at once, for bench/run. */
void print_samples (const char   *bench,
                    const char   *fields,
                    const gint64 *values,
                    guint         n_values);

void print_line (const char *format,
                 ...) G_GNUC_PRINTF (1, 2);

gboolean list_has (const char *list,
                   const char *item);
gint64 cpu_ns (void);
gboolean monitor_backend_ok (ProcwatchProcessMonitor *monitor);

/* Counts signals of a monitor and stamps the last of each. */
typedef struct
{
  GPid pid;           /* the one process a latency round waits for, or 0 */
  guint n_exited;
  guint n_reaped;
  gint64 exited_ns;
  gint64 reaped_ns;
} Counter;

void on_counter_reaped (ProcwatchProcessMonitor *monitor,
                        ProcwatchProcess        *process,
                        Counter                 *counter);
ProcwatchProcessMonitor *counting_monitor_new (Counter *counter);

/* The peers of the latency and syscalls measurements. */
typedef enum
{
  PEER_EPOLL,
  PEER_EPOLLSOURCE,
  PEER_MONITOR,
  PEER_FDSOURCE,
  PEER_CHILDWATCH,
  PEER_POLL10,
  PEER_PSUTIL,
  PEER_PIDWAIT,
  N_PEERS
} Peer;

extern const char *peer_names[N_PEERS];

/* The main loop as an application runs it. */
void run_loop_for (gint64  us,
                   guint  *iterations);

/* When the main loop's poll() last returned: splits a GLib peer's latency
 * into the kernel's part (up to the wake-up) and user space's (after it). */
extern gint64 last_poll_return_ns;
int timed_poll (GPollFD *fds,
                guint    n_fds,
                int      timeout);

/* A poll function that records the fds polled, for context_has_pending (). */
int recording_poll (GPollFD *fds,
                    guint    n_fds,
                    int      timeout);
gboolean context_has_pending (void);

/* Sources that keep the main loop busy or watch a pidfd, doing nothing. */
gboolean keep_idle (gpointer user_data);
gboolean on_idle_fd (int           fd,
                     GIOCondition  condition,
                     gpointer      user_data);

/* --sizes: a comma-separated list of process counts, or @fallback. */
GArray *parse_sizes (const char *text,
                     const char *fallback);

/* A forked worker process, driven by one-byte commands on a pipe: peers that
 * would not fit together under one RLIMIT_NOFILE take turns. */
typedef struct
{
  pid_t pid;
  int command_fd;
  int ack_fd;
} Worker;

gboolean worker_fork (Worker *worker,
                      int    *command_fd,
                      int    *ack_fd);
gboolean worker_ask (Worker *worker,
                     char    expected);
void worker_stop (Worker *worker);

/* The floor: raw pidfds on one epoll set, as a program with nothing
 * else does it. */
typedef struct
{
  int fd;
  gboolean exited;
  Counter *counter;
} FdWatch;

typedef struct
{
  int epoll_fd;
  FdWatch *watches;
} EpollSource;

void fd_watch_exited (FdWatch *watch);
void epoll_handle (int                 epoll_fd,
                   FdWatch            *watches,
                   struct epoll_event *event);
int epoll_watch_all (FdWatch    *watches,
                     const GPid *pids,
                     guint       n,
                     Counter    *counter);
gboolean on_epoll_ready (int           fd,
                         GIOCondition  condition,
                         gpointer      user_data);

/* Always inline: callgrind's exit mode counts this loop for the floor, and
 * a call to it adds its prologue to every exit (23 instructions, 9 % of the
 * floor's count); whether the compiler inlines it on its own depends on the
 * size of the caller. */
G_ALWAYS_INLINE static inline void
epoll_run_until (int      epoll_fd,
                 FdWatch *watches,
                 Counter *counter,
                 guint    n_reaped)
{
  struct epoll_event events[EPOLL_BATCH];

  while (counter->n_reaped < n_reaped)
    {
      int n = epoll_wait (epoll_fd, events, EPOLL_BATCH, -1);
      int i;

      for (i = 0; i < n; i++)
        epoll_handle (epoll_fd, watches, &events[i]);
    }
}

/* Memory, as /proc and malloc tell it. */
gint64 kib_field_of (const char *text,
                     const char *name);
gint64 proc_kib_field (const char *path,
                       const char *name);
gint64 heap_bytes (void);

/* RLIMIT_NOFILE's soft limit raised to its hard one, and the hard one first
 * to @needed where it is lower (CAP_SYS_RESOURCE); FALSE if refused. */
gboolean raise_fd_limit_to (rlim_t needed);

/* A do-nothing "items-changed" handler: the list model's emission is paid. */
void on_list_items_changed (GListModel *model,
                            guint       position,
                            guint       removed,
                            guint       added,
                            gpointer    user_data);

/* The measurements (procwatch-bench-<name>.c). */
int cmd_latency         (void);
int cmd_syscalls        (void);
int cmd_iter            (void);
int cmd_burst           (void);
int cmd_watchcost       (void);
int cmd_watchat         (void);
int cmd_memory          (void);
int cmd_scale           (void);
int cmd_listmodel       (void);
int cmd_callgrind       (char *self_path);
int cmd_callgrind_inner (void);
int cmd_pollidle        (void);
int cmd_smoke           (void);

G_END_DECLS
