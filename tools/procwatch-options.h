/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch's command line, read as getopt_long(3) reads it, under its own
 * name or as util-linux waitpid(1).
 */

#pragma once

#include <glib.h>

#include "procwatch-select.h"

G_BEGIN_DECLS

/* The exit statuses of waitpid(1). */
enum
{
  TOOL_EXIT_OK = 0,
  TOOL_EXIT_FAILURE = 1,
  TOOL_EXIT_UNSUPPORTED = 2,
  TOOL_EXIT_TIMEOUT = 3,
};

/* timeout(1)'s, for a COMMAND: the time was up (137, 128 + SIGKILL, if KILL
 * then ended it). */
#define TOOL_EXIT_COMMAND_TIMEOUT 124

typedef struct
{
  gboolean waitpid_mode;   /* run as "waitpid": only its options, no events */

  GPtrArray *pid_args;     /* PID[:INODE] operands, within argv */
  GPtrArray *patterns;     /* -n, within argv; NULL-terminated once parsed */
  char **command_argv;     /* after "--", within argv; NULL if none */
  GPtrArray *cgroups;      /* --cgroup PATH, within argv */
  GPtrArray *cgroup_of;    /* --cgroup-of PID[:INODE], within argv */
  GPtrArray *dbus_names;   /* --dbus-name NAME, within argv */
  GPtrArray *apps;         /* --app APP_ID, within argv */
  gboolean signal_cgroups; /* --signal-cgroups: signals reach --cgroup(-of) too */
  gboolean system_bus;     /* --system: else the session bus */

  guint timeout_ms;        /* 0: none */
  guint64 count;           /* 0: all */
  int send_signal;         /* --send: -1 none */
  int timeout_signal;      /* -s, when -t expires: -1 none */
  guint kill_after_ms;     /* -k: 0 none */
  ToolMatchFlags match_flags;

  gboolean allow_exited;
  gboolean wait_reaped;
  gboolean json;
  gboolean quiet;
  gboolean verbose;
  gboolean debug;
} ToolOptions;

extern const char *tool_program_name;

void tool_warn          (const char  *format,
                         ...) G_GNUC_PRINTF (1, 2);
int  tool_usage_error   (const char  *message);

int  tool_parse_options (int          argc,
                         char        *argv[],
                         ToolOptions *options);
void tool_options_clear (ToolOptions *options);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ToolOptions, tool_options_clear)

G_END_DECLS
