/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * One run of procwatch: what it watches, what it awaits and how it ends,
 * shared by the tool's rooms. The operations are procwatch-run.c's, the
 * room below the others: procwatch.c (finding the processes, reporting
 * their events), procwatch-cgroups.c (cgroups and apps), procwatch-bus.c
 * (D-Bus names) and procwatch-timeout.c (the timeout, the signals and the
 * COMMAND) call them, and they call none back.
 */

#pragma once

#include <gio/gio.h>
#include <gio-procwatch/procwatch.h>

#include "procwatch-output.h"

G_BEGIN_DECLS

typedef struct
{
  GMainLoop *loop;
  ProcwatchProcessMonitor *monitor;
  GHashTable *targets;   /* ProcwatchProcess → ToolTarget */

  gboolean waitpid_mode;
  gboolean json;
  gboolean quiet;
  gboolean verbose;
  gboolean debug;
  gboolean wait_reaped;
  gboolean allow_exited;

  int timeout_signal;      /* -s: -1 none */
  guint kill_after_ms;     /* -k: 0 none */
  guint64 count;           /* -c: 0 all */
  GPtrArray *order;        /* the watched processes, first watched first */

  guint needed;
  guint finished;
  gboolean done;
  gboolean failed;
  gboolean timed_out;
  gboolean kill_after_armed;
  guint n_stopping;        /* signalled at the timeout, still awaited */
  int exit_code;

  ProcwatchProcess *command;   /* NULL unless running a COMMAND */
  GPtrArray *cgroups;          /* the watched ProcwatchCgroups, each once */
  GCancellable *cancellable;   /* the cgroups' waits and bus requests, cancelled at the end */

  GPtrArray *apps;             /* ToolApp (procwatch-cgroups.c): each --app */
  guint n_apps;                /* of @apps: not given up, each counted as one */
  gboolean signal_cgroups;     /* --signal-cgroups */
  guint n_dropped_cgroups;     /* of @cgroups: not signalled, given up */
  GHashTable *stopping_cgroups; /* of @cgroups: signalled at the timeout */
} Tool;

typedef enum
{
  WATCH_OK,
  WATCH_GONE,          /* no longer exists: fine with -e */
  WATCH_FAILED,
  WATCH_UNSUPPORTED,   /* the kernel lacks what is needed */
} WatchResult;

void        tool_debug         (Tool              *tool,
                                const char        *format,
                                ...) G_GNUC_PRINTF (2, 3);
void        tool_verbose_line  (Tool              *tool,
                                const char        *format,
                                ...) G_GNUC_PRINTF (2, 3);
void        tool_finish        (Tool              *tool);
WatchResult tool_watch_target  (Tool              *tool,
                                GPid               pid,
                                guint64            want_inode,
                                const char        *name,
                                GError           **error);
WatchResult tool_watch_token   (Tool              *tool,
                                const char        *text,
                                GError           **error);
void        tool_drop_target   (Tool              *tool,
                                ProcwatchProcess  *process);

/* The parts of those that procwatch.c uses on its own: --dbus-name and
 * --cgroup-of reach a process other than by pid, and what is awaited is
 * counted once all is watched. */
guint       tool_count_needed   (Tool              *tool,
                                 guint64            count);
WatchResult tool_classify_error (const GError      *error);
void        tool_add_target     (Tool              *tool,
                                 ProcwatchProcess  *process,
                                 ToolTarget        *target);
char       *tool_target_name    (ProcwatchProcess  *process,
                                 GPid               pid);

G_END_DECLS
