/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench iter: the cost of one main-loop iteration with N idle
 * processes watched (bench/README.md, section 2), each peer in a worker
 * process of its own.
 */

#include <errno.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

/* 2. Main-loop iteration cost with N idle watched processes */

static GMainContext *
context_with_idle (void)
{
  GMainContext *context = g_main_context_new ();
  g_autoptr(GSource) idle = g_idle_source_new ();

  g_source_set_callback (idle, keep_idle, NULL, NULL);
  g_source_attach (idle, context);
  return context;
}

/* Puts @n watched processes on @context the way @peer does. */
static gpointer
watch_idle (const char   *peer,
            GMainContext *context,
            const GPid   *pids,
            guint         n)
{
  guint i;

  if (g_str_equal (peer, "monitor"))
    {
      ProcwatchProcessMonitor *monitor;

      g_main_context_push_thread_default (context);
      monitor = procwatch_process_monitor_new ();
      g_main_context_pop_thread_default (context);

      /* Also with no process the monitor has its source, as in use. */
      g_object_unref (procwatch_process_monitor_watch_pid (monitor, getpid (), NULL));
      procwatch_process_monitor_unwatch (monitor, getpid ());

      for (i = 0; i < n; i++)
        {
          g_autoptr(GError) error = NULL;
          ProcwatchProcess *process = procwatch_process_monitor_watch_pid (monitor, pids[i], &error);

          if (process == NULL)
            g_error ("procwatch-bench: %s", error->message);
          g_object_unref (process);
        }
      return monitor;
    }

  for (i = 0; i < n; i++)
    {
      int pidfd = bench_pidfd_open (pids[i]);
      g_autoptr(GSource) source = NULL;

      if (pidfd < 0)
        g_error ("procwatch-bench: pidfd_open: %s", g_strerror (errno));
      source = g_unix_fd_source_new (pidfd, G_IO_IN);
      g_source_set_callback (source, G_SOURCE_FUNC (on_idle_fd), NULL, NULL);
      g_source_attach (source, context);
    }
  return NULL;
}

/* Times single iterations; stops early after 200 ms (slow peers at scale). */
static void
time_iterations (GMainContext *context,
                 GArray       *samples)
{
  gint64 start = bench_now_ns ();
  int i;

  g_array_set_size (samples, 0);
  for (i = 0; i < opt_iters; i++)
    {
      gint64 t0 = bench_now_ns ();
      gint64 t1;

      g_main_context_iteration (context, FALSE);
      t1 = bench_now_ns ();
      g_array_append_val (samples, (gint64) { t1 - t0 });

      if (i >= 5 && t1 - start > 200 * G_GINT64_CONSTANT (1000000))
        break;
    }
}

G_GNUC_NORETURN static void
iter_worker (const char *peer,
             const GPid *pids,
             guint       n,
             int         command_fd,
             int         ack_fd)
{
  GMainContext *none = context_with_idle ();
  GMainContext *context = context_with_idle ();
  g_autoptr(GArray) samples = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *fields = g_strdup_printf ("\"n\": %u, \"peer\": \"%s\"", n, peer);
  g_autofree char *none_fields = g_strdup_printf ("\"n\": %u, \"peer\": \"none\", \"beside\": \"%s\"",
                                                  n, peer);
  gpointer owner = watch_idle (peer, context, pids, n);
  char command;
  int block = 0;

  io_write_all (ack_fd, "r", 1);

  while (io_read_all (command_fd, &command, 1) && command == 'b')
    {
      /* Alternating which one goes first. */
      int k;

      for (k = 0; k < 2; k++)
        {
          gboolean own = (k + block) % 2 == 0;

          time_iterations (own ? context : none, samples);
          print_samples ("iter", own ? fields : none_fields,
                         (gint64 *) samples->data, samples->len);
        }
      block++;
      io_write_all (ack_fd, "d", 1);
    }

  g_clear_object (&owner);
  _exit (0);
}

static void
worker_start (Worker     *worker,
              const char *peer,
              const GPid *pids,
              guint       n)
{
  int command_fd, ack_fd;

  if (worker_fork (worker, &command_fd, &ack_fd))
    iter_worker (peer, pids, n, command_fd, ack_fd);
}

/* Each peer lives in a worker process of its own: 10,000 pidfds for each
 * would not fit under one RLIMIT_NOFILE of 20,000. The workers take turns,
 * block by block. */
int
cmd_iter (void)
{
  g_autoptr(GArray) sizes = parse_sizes (opt_sizes, "0,1000,5000,10000");
  const char *peers[] = { "monitor", "fdsource" };
  BenchSleepers sleepers = { 0 };
  guint max_size = 0;
  guint s;

  bench_raise_fd_limit ();

  for (s = 0; s < sizes->len; s++)
    max_size = MAX (max_size, g_array_index (sizes, guint, s));

  if (!bench_sleepers_spawn (&sleepers, max_size))
    return 1;

  for (s = 0; s < sizes->len; s++)
    {
      guint n = g_array_index (sizes, guint, s);
      Worker workers[G_N_ELEMENTS (peers)];
      guint w;
      int block;

      for (w = 0; w < G_N_ELEMENTS (peers); w++)
        {
          worker_start (&workers[w], peers[w], (GPid *) sleepers.pids->data, n);
          if (!worker_ask (&workers[w], 'r'))
            g_error ("procwatch-bench: iteration worker %s failed", peers[w]);
        }

      for (block = 0; block < opt_blocks; block++)
        for (w = 0; w < G_N_ELEMENTS (peers); w++)
          worker_ask (&workers[(w + block) % G_N_ELEMENTS (peers)], 'd');

      for (w = 0; w < G_N_ELEMENTS (peers); w++)
        worker_stop (&workers[w]);
    }

  bench_sleepers_finish (&sleepers);
  return 0;
}
