/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench: measures ProcwatchProcessMonitor against its peers, each
 * subcommand one measurement, printing one JSON object per line for
 * bench/run to gather. Peers are measured in the same process run,
 * interleaved, so that their ratios hold on a noisy machine.
 */

#include <signal.h>

#include "procwatch-bench-harness.h"

static GOptionEntry entries[] = {
  { "rounds", 0, 0, G_OPTION_ARG_INT, &opt_rounds, "Rounds (each measures every peer once)", "R" },
  { "n", 0, 0, G_OPTION_ARG_INT, &opt_n, "Number of processes", "N" },
  { "iters", 0, 0, G_OPTION_ARG_INT, &opt_iters, "Iterations per block", "K" },
  { "blocks", 0, 0, G_OPTION_ARG_INT, &opt_blocks, "Interleaved blocks", "B" },
  { "peers", 0, 0, G_OPTION_ARG_STRING, &opt_peers, "Comma-separated peers", "LIST" },
  { "layouts", 0, 0, G_OPTION_ARG_STRING, &opt_layouts, "child,nonchild", "LIST" },
  { "sizes", 0, 0, G_OPTION_ARG_STRING, &opt_sizes, "Comma-separated process counts", "LIST" },
  { "label", 0, 0, G_OPTION_ARG_STRING, &opt_label, "Label of this run in the output", "TEXT" },
  { "expect-backend", 0, 0, G_OPTION_ARG_STRING, &opt_expect_backend,
    "Drop the monitor unless it uses this backend", "NAME" },
  { "psutil-script", 0, 0, G_OPTION_ARG_FILENAME, &opt_psutil_script, "bench/peer-psutil.py", "PATH" },
  { "python", 0, 0, G_OPTION_ARG_FILENAME, &opt_python, "Python with psutil", "PATH" },
  { "mode", 0, 0, G_OPTION_ARG_STRING, &opt_mode,
    "callgrind: iter, exit, child, listexit, listunwatch or listwatch", "MODE" },
  { "out", 0, 0, G_OPTION_ARG_FILENAME, &opt_out, "callgrind output file", "PATH" },
  { "valgrind", 0, 0, G_OPTION_ARG_FILENAME, &opt_valgrind, "valgrind executable", "PATH" },
  { "shim", 0, 0, G_OPTION_ARG_FILENAME, &opt_shim, "procwatch-bench-vgshim.so", "PATH" },
  { "fd-base", 0, 0, G_OPTION_ARG_INT, &opt_fd_base, "(internal)", "FD" },
  { "ctl-fd", 0, 0, G_OPTION_ARG_INT, &opt_ctl_fd, "(internal)", "FD" },
  { "max-delay-us", 0, 0, G_OPTION_ARG_INT, &opt_max_delay_us,
    "Random wait before each exit, at most", "US" },
  { "reaped", 0, 0, G_OPTION_ARG_NONE, &opt_reaped,
    "latency: also exit → \"reaped\" of a non-child (its parent reaps at once)", NULL },
  { "delay-in-loop", 0, 0, G_OPTION_ARG_NONE, &opt_delay_in_loop,
    "Run the main loop during that wait (monitor)", NULL },
  { "sleepers", 0, 0, G_OPTION_ARG_FILENAME, &opt_sleepers,
    "scale, memory: procwatch-bench-sleepers", "PATH" },
  { "drop-caches", 0, 0, G_OPTION_ARG_NONE, &opt_drop_caches,
    "scale: drop the kernel's reclaimable caches around its memory readings (root, in a "
    "machine of the benchmark's own: a guest)", NULL },
  { NULL }
};

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *self_path = g_file_read_link ("/proc/self/exe", NULL);
  const char *command;

  /* Helpers started by the benchmark itself, before anything else. */
  if (argc >= 2 && (g_str_equal (argv[1], "target") || g_str_equal (argv[1], "target-parent") ||
                    g_str_equal (argv[1], "spawner")))
    return bench_run_role (argv[1], argv[2]);

  context = g_option_context_new ("latency|syscalls|iter|burst|watchcost|watchat|memory|listmodel|pollidle|callgrind|smoke|scale");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc < 2)
    {
      g_printerr ("procwatch-bench: %s\n",
                  error != NULL ? error->message : "which measurement? (see --help)");
      return 2;
    }

  /* A peer that died early must not take the benchmark with it. */
  signal (SIGPIPE, SIG_IGN);

  command = argv[1];
  if (g_str_equal (command, "latency"))
    return cmd_latency ();
  if (g_str_equal (command, "iter"))
    return cmd_iter ();
  if (g_str_equal (command, "burst"))
    return cmd_burst ();
  if (g_str_equal (command, "watchcost"))
    return cmd_watchcost ();
  if (g_str_equal (command, "syscalls"))
    return cmd_syscalls ();
  if (g_str_equal (command, "watchat"))
    return cmd_watchat ();
  if (g_str_equal (command, "memory"))
    return cmd_memory ();
  if (g_str_equal (command, "listmodel"))
    return cmd_listmodel ();
  if (g_str_equal (command, "callgrind"))
    return cmd_callgrind (self_path);
  if (g_str_equal (command, "callgrind-inner"))
    return cmd_callgrind_inner ();
  if (g_str_equal (command, "pollidle"))
    return cmd_pollidle ();
  if (g_str_equal (command, "smoke"))
    return cmd_smoke ();
  if (g_str_equal (command, "scale"))
    return cmd_scale ();

  g_printerr ("procwatch-bench: unknown measurement %s\n", command);
  return 2;
}
