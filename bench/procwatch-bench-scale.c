/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench scale: N (100,000) watched processes in one monitor
 * against raw epoll and the crowd alone: watch time, idle iterations,
 * one kill of all, and the memory of user space and of the kernel
 * (bench/README.md, section 7; bench/run --scale).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

/* 7. Scale: N (100,000) watched processes in one monitor (bench/run --scale)
 *
 * Each round watches one crowd with the monitor and another with raw epoll,
 * in turns (a different one first each round): the time to watch them all,
 * for the monitor the idle iteration cost against a monitor with 1 watched
 * (in a context of its own, block by block), and one kill (-group, SIGKILL)
 * of the crowd, counted to the last "reaped". The crowds come from
 * procwatch-bench-sleepers (--sleepers); their memory is MemAvailable
 * before and after they are started. Needs RLIMIT_NOFILE above N (raised
 * here, as root) and a kernel.pid_max that leaves room for N more pids
 * (bench/run raises it and puts it back). Peer "none" watches nothing: the
 * crowd's memory, what a watch's reads of /proc cost on their own (the
 * name of every process, then its cgroup: time and kernel memory), and the
 * kill with its parent alone reaping (to the exit of the parent, which
 * waits for its last child). The kernel's memory (/proc/meminfo: slab,
 * its reclaimable and unreclaimable parts, free memory) is read before
 * and after the watches and, with --drop-caches (a guest of the
 * benchmark's own), once more after the kernel has dropped what it can:
 * the dentries and inodes that reads of /proc leave behind are kept while
 * their process lives, but only as a cache. */

typedef struct
{
  guint8 *seen;        /* by pid: SEEN_EXITED | SEEN_REAPED */
  guint n_exited;
  guint n_reaped;
  guint duplicates;    /* a second "exited" or "reaped", or "reaped" first */
  gint64 exited_ns;
  gint64 reaped_ns;
} ScaleCount;

enum { SEEN_EXITED = 1, SEEN_REAPED = 2 };

static void
scale_seen (ScaleCount       *count,
            ProcwatchProcess *process,
            guint8            what)
{
  GPid pid = procwatch_process_get_pid (process);
  guint8 *seen = &count->seen[pid];

  if ((*seen & what) || (what == SEEN_REAPED && !(*seen & SEEN_EXITED)))
    count->duplicates++;
  *seen |= what;

  if (what == SEEN_EXITED)
    {
      count->n_exited++;
      count->exited_ns = bench_now_ns ();
    }
  else
    {
      count->n_reaped++;
      count->reaped_ns = bench_now_ns ();
    }
}

static void
on_scale_exited (ProcwatchProcessMonitor *monitor,
                 ProcwatchProcess        *process,
                 ScaleCount              *count)
{
  scale_seen (count, process, SEEN_EXITED);
}

static void
on_scale_reaped (ProcwatchProcessMonitor *monitor,
                 ProcwatchProcess        *process,
                 ScaleCount              *count)
{
  scale_seen (count, process, SEEN_REAPED);
}

/* The kernel's memory as /proc/meminfo tells it at one moment: its slab
 * (dentries, inodes, files, epoll items, pids), the part of it the kernel
 * frees under memory pressure, the rest, and the free memory. */
typedef struct
{
  gint64 slab;
  gint64 reclaimable;
  gint64 unreclaimable;
  gint64 free;
} KernelMemory;

static void
kernel_memory (KernelMemory *memory)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/meminfo", &text, NULL, NULL))
    g_error ("procwatch-bench: cannot read /proc/meminfo");

  memory->slab = kib_field_of (text, "Slab");
  memory->reclaimable = kib_field_of (text, "SReclaimable");
  memory->unreclaimable = kib_field_of (text, "SUnreclaim");
  memory->free = kib_field_of (text, "MemFree");
}

static char *
kernel_memory_json (const KernelMemory *memory)
{
  return g_strdup_printf ("{\"slab\": %" G_GINT64_FORMAT ", \"reclaimable\": %" G_GINT64_FORMAT
                          ", \"unreclaimable\": %" G_GINT64_FORMAT ", \"free\": %"
                          G_GINT64_FORMAT "}", memory->slab, memory->reclaimable,
                          memory->unreclaimable, memory->free);
}

/* With --drop-caches: the kernel frees what it can of its caches (dentries
 * and inodes, /proc's among them, and the page cache), so that a reading
 * after it is what is held, not what was left behind. Machine-wide: only
 * in a machine of the benchmark's own. */
static void
drop_kernel_caches (void)
{
  int fd;

  if (!opt_drop_caches)
    return;

  /* Write-only, also for root: no g_file_set_contents (). */
  fd = open ("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write (fd, "2\n", 2) != 2)
    g_error ("procwatch-bench: cannot drop the kernel's caches: %s", g_strerror (errno));
  close (fd);
}

/* What a watch reads of each process besides its pidfd, on its own: the
 * name (/proc/PID/comm) of every one of @n, then its cgroup, each pass
 * timed and the kernel's memory read around it, as the library reads them
 * (openat of "PID/FILE" below one /proc fd, read, close). The JSON of the
 * two, for the crowd's record. */
static char *
scale_reads (const GPid *pids,
             guint       n)
{
  const char *files[] = { "comm", "cgroup" };
  g_autoptr(GString) json = g_string_new ("{");
  int proc_fd = open ("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  guint f, i;

  if (proc_fd < 0)
    g_error ("procwatch-bench: cannot open /proc: %s", g_strerror (errno));

  for (f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *before_json = NULL;
      g_autofree char *after_json = NULL;
      KernelMemory before, after;
      gint64 start, ns;

      drop_kernel_caches ();
      kernel_memory (&before);
      start = bench_now_ns ();
      for (i = 0; i < n; i++)
        {
          char path[64];
          char text[4096];
          int fd;

          g_snprintf (path, sizeof path, "%d/%s", (int) pids[i], files[f]);
          fd = openat (proc_fd, path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
          if (fd < 0 || read (fd, text, sizeof text) <= 0)
            g_error ("procwatch-bench: cannot read /proc/%s: %s", path, g_strerror (errno));
          close (fd);
        }
      ns = bench_now_ns () - start;
      kernel_memory (&after);

      before_json = kernel_memory_json (&before);
      after_json = kernel_memory_json (&after);
      g_string_append_printf (json, "%s\"%s\": {\"ns\": %" G_GINT64_FORMAT ", \"before\": %s, "
                              "\"after\": %s}", f > 0 ? ", " : "", files[f], ns, before_json,
                              after_json);
    }

  close (proc_fd);
  g_string_append (json, "}");
  return g_string_free (g_steal_pointer (&json), FALSE);
}

static gint64
mem_available_bytes (void)
{
  return proc_kib_field ("/proc/meminfo", "MemAvailable");
}

/* Idle iterations of @big (N watched) and @small (1 watched), one by one,
 * in alternating blocks; each context has an always-ready idle source. */
static void
scale_iterations (GMainContext *big,
                  GMainContext *small,
                  int           round)
{
  GMainContext *contexts[] = { big, small };
  GArray *samples[G_N_ELEMENTS (contexts)];
  GSource *idles[G_N_ELEMENTS (contexts)];
  guint c;
  int block, k;

  for (c = 0; c < G_N_ELEMENTS (contexts); c++)
    {
      samples[c] = g_array_new (FALSE, FALSE, sizeof (gint64));
      idles[c] = g_idle_source_new ();
      g_source_set_callback (idles[c], keep_idle, NULL, NULL);
      g_source_attach (idles[c], contexts[c]);
    }

  for (block = 0; block < opt_blocks; block++)
    for (c = 0; c < G_N_ELEMENTS (contexts); c++)
      {
        GMainContext *context = contexts[(c + block) % G_N_ELEMENTS (contexts)];
        GArray *into = samples[(c + block) % G_N_ELEMENTS (contexts)];

        for (k = 0; k < opt_iters; k++)
          {
            gint64 t0 = bench_now_ns ();
            gint64 dt;

            g_main_context_iteration (context, FALSE);
            dt = bench_now_ns () - t0;
            /* The first block warms the caches. */
            if (block > 0)
              g_array_append_val (into, dt);
          }
      }

  for (c = 0; c < G_N_ELEMENTS (contexts); c++)
    {
      g_autofree char *fields = g_strdup_printf ("\"round\": %d, \"watched\": %u", round,
                                                 c == 0 ? (guint) opt_n : 1);

      print_samples ("scale-iter", fields, (gint64 *) samples[c]->data, samples[c]->len);
      g_array_unref (samples[c]);
      g_source_destroy (idles[c]);
      g_source_unref (idles[c]);
    }
}

/* Watches the crowd the way @peer does: a monitor counting into @count, or
 * raw epoll counting into @counter; "none" watches nothing. */
static void
scale_watch (const char               *peer,
             BenchSleepers            *sleepers,
             guint                     n,
             ScaleCount               *count,
             Counter                  *counter,
             ProcwatchProcessMonitor **monitor,
             FdWatch                 **watches,
             int                      *epoll_fd)
{
  guint i;

  if (g_str_equal (peer, "monitor"))
    {
      *monitor = procwatch_process_monitor_new ();
      g_signal_connect (*monitor, "exited", G_CALLBACK (on_scale_exited), count);
      g_signal_connect (*monitor, "reaped", G_CALLBACK (on_scale_reaped), count);
      for (i = 0; i < n; i++)
        {
          g_autoptr(GError) error = NULL;
          ProcwatchProcess *process;

          process = procwatch_process_monitor_watch_pid (*monitor,
                                                         g_array_index (sleepers->pids, GPid, i),
                                                         &error);
          if (process == NULL)
            g_error ("procwatch-bench: cannot watch process %u of %u: %s", i, n, error->message);
          g_object_unref (process);
        }
    }
  else if (g_str_equal (peer, "epoll"))
    {
      *watches = g_new0 (FdWatch, n);
      *epoll_fd = epoll_watch_all (*watches, (GPid *) sleepers->pids->data, n, counter);
    }
}

/* The idle iterations of the default context, whose monitor watches the
 * crowd, against those of a second context whose monitor watches @pid
 * alone. The caller frees the second monitor and its context after the
 * crowd's kill, so that no span pays for it. */
static void
scale_compare_idle (GPid                      pid,
                    int                       round,
                    ProcwatchProcessMonitor **small_monitor,
                    GMainContext            **small_context)
{
  /* Whatever setup left pending first. */
  while (g_main_context_iteration (NULL, FALSE))
    ;

  *small_context = g_main_context_new ();
  g_main_context_push_thread_default (*small_context);
  *small_monitor = procwatch_process_monitor_new ();
  g_object_unref (procwatch_process_monitor_watch_pid (*small_monitor, pid, NULL));
  g_main_context_pop_thread_default (*small_context);
  while (g_main_context_iteration (*small_context, FALSE))
    ;

  scale_iterations (g_main_context_default (), *small_context, round);
  procwatch_process_monitor_close (*small_monitor);
  while (g_main_context_iteration (*small_context, FALSE))
    ;
}

/* After the kill at @start: waits for the last "reaped" (the monitor), the
 * last hang-up (raw epoll, from @counter) or, with nothing watched, the
 * exit of the sleepers' parent, and puts the tally in @count. */
static void
scale_await (ScaleCount    *count,
             Counter       *counter,
             BenchSleepers *sleepers,
             gboolean       monitor,
             int            epoll_fd,
             FdWatch       *watches,
             guint          n,
             gint64         start)
{
  gint64 deadline;

  /* Bounded, so that a lost event ends the run with the count short
   * instead of hanging it. */
  deadline = start + G_GINT64_CONSTANT (900) * 1000000000;
  if (epoll_fd >= 0)
    {
      struct epoll_event events[EPOLL_BATCH];

      while (counter->n_reaped < n && bench_now_ns () < deadline)
        {
          int ready = epoll_wait (epoll_fd, events, EPOLL_BATCH, 1000);
          int e;

          for (e = 0; e < ready; e++)
            epoll_handle (epoll_fd, watches, &events[e]);
        }
      count->n_exited = counter->n_exited;
      count->n_reaped = counter->n_reaped;
      count->exited_ns = counter->exited_ns;
      count->reaped_ns = counter->reaped_ns;
    }
  else if (!monitor)
    {
      GPid spawner = sleepers->spawner;

      while (waitpid (spawner, NULL, 0) < 0 && errno == EINTR)
        ;
      sleepers->spawner = 0;
      count->n_reaped = count->n_exited = n;
      count->reaped_ns = count->exited_ns = bench_now_ns ();
    }
  else
    {
      while (count->n_reaped < n && bench_now_ns () < deadline)
        g_main_context_iteration (NULL, TRUE);
    }
}

static gboolean
measure_scale (const char *peer,
               guint       n,
               int         round,
               guint8     *seen)
{
  BenchSleepers sleepers = { 0 };
  ScaleCount count = { seen, 0, 0, 0, 0, 0 };
  Counter counter = { 0 };
  g_autofree FdWatch *watches = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchProcessMonitor) small_monitor = NULL;
  g_autoptr(GMainContext) small_context = NULL;
  gint64 mem_before, mem_after, spawn_start, spawn_ns, watch_start, watch_ns;
  gint64 heap_before, heap_grown = 0, start, cpu_start, cpu;
  KernelMemory kernel_before, kernel_after, kernel_held;
  g_autofree char *kernel_before_json = NULL;
  g_autofree char *kernel_after_json = NULL;
  g_autofree char *kernel_held_json = NULL;
  g_autofree char *reads_json = NULL;
  int epoll_fd = -1;
  guint i;

  mem_before = mem_available_bytes ();
  spawn_start = bench_now_ns ();
  if (!bench_sleepers_spawn_program (&sleepers, n, opt_sleepers))
    return FALSE;
  spawn_ns = bench_now_ns () - spawn_start;
  mem_after = mem_available_bytes ();

  drop_kernel_caches ();
  kernel_memory (&kernel_before);
  heap_before = heap_bytes ();
  watch_start = bench_now_ns ();
  scale_watch (peer, &sleepers, n, &count, &counter, &monitor, &watches, &epoll_fd);
  watch_ns = bench_now_ns () - watch_start;
  kernel_memory (&kernel_after);
  /* What the watches hold of the kernel's memory, once what they left
   * behind is freed (with --drop-caches; else the same reading again). */
  drop_kernel_caches ();
  kernel_memory (&kernel_held);
  kernel_before_json = kernel_memory_json (&kernel_before);
  kernel_after_json = kernel_memory_json (&kernel_after);
  kernel_held_json = kernel_memory_json (&kernel_held);

  /* The crowd alone: what the reads of a watch cost, each on its own. */
  if (monitor == NULL && epoll_fd < 0)
    reads_json = scale_reads ((const GPid *) sleepers.pids->data, n);

  if (monitor != NULL)
    {
      heap_grown = heap_bytes () - heap_before;

      scale_compare_idle (g_array_index (sleepers.pids, GPid, 0), round, &small_monitor,
                          &small_context);
    }

  cpu_start = cpu_ns ();
  start = bench_now_ns ();
  bench_sleepers_kill (&sleepers);

  scale_await (&count, &counter, &sleepers, monitor != NULL, epoll_fd, watches, n, start);
  cpu = cpu_ns () - cpu_start;

  print_line ("{\"bench\": \"scale\", \"peer\": \"%s\", \"round\": %d, \"n\": %u, "
              "\"spawn_ns\": %" G_GINT64_FORMAT ", \"mem_before\": %" G_GINT64_FORMAT ", "
              "\"mem_after\": %" G_GINT64_FORMAT ", \"watch_ns\": %" G_GINT64_FORMAT ", "
              "\"heap_bytes\": %" G_GINT64_FORMAT ", \"n_exited\": %u, \"n_reaped\": %u, "
              "\"duplicates\": %u, \"exited_ns\": %" G_GINT64_FORMAT ", \"reaped_ns\": %"
              G_GINT64_FORMAT ", \"cpu_ns\": %" G_GINT64_FORMAT ", \"caches_dropped\": %s, "
              "\"kernel\": {\"before\": %s, \"after\": %s, \"held\": %s}, \"reads\": %s}",
              peer, round, n, spawn_ns, mem_before, mem_after, watch_ns, heap_grown,
              count.n_exited, count.n_reaped, count.duplicates,
              count.exited_ns - start, count.reaped_ns - start, cpu,
              opt_drop_caches ? "true" : "false", kernel_before_json, kernel_after_json,
              kernel_held_json, reads_json != NULL ? reads_json : "null");

  if (monitor != NULL)
    procwatch_process_monitor_close (monitor);
  if (epoll_fd >= 0)
    {
      for (i = 0; i < n; i++)
        if (watches[i].fd >= 0)
          close (watches[i].fd);
      close (epoll_fd);
    }
  bench_sleepers_finish (&sleepers);
  return count.n_reaped == n;
}

int
cmd_scale (void)
{
  g_auto(GStrv) peers = g_strsplit (opt_peers != NULL ? opt_peers : "monitor,epoll", ",", -1);
  guint n_peers = g_strv_length (peers);
  g_autofree guint8 *seen = NULL;
  int pid_max;
  g_autofree char *text = NULL;
  int round;
  guint p;

  if (opt_sleepers == NULL)
    {
      g_printerr ("procwatch-bench: scale needs --sleepers=PATH\n");
      return 2;
    }

  if (!g_strv_equal ((const char * const *) peers, (const char *[]) { "none", NULL }) &&
      !raise_fd_limit_to ((rlim_t) opt_n + 4096))
    {
      g_printerr ("procwatch-bench: cannot raise RLIMIT_NOFILE to %d: %s\n",
                  opt_n + 4096, g_strerror (errno));
      return 1;
    }

  /* Pids index the tally: one byte per possible pid. */
  if (!g_file_get_contents ("/proc/sys/kernel/pid_max", &text, NULL, NULL))
    return 1;
  pid_max = atoi (text);
  seen = g_malloc (pid_max + 1);

  for (round = 0; round < opt_rounds; round++)
    for (p = 0; p < n_peers; p++)
      {
        memset (seen, 0, pid_max + 1);
        if (!measure_scale (peers[(p + round) % n_peers], opt_n, round, seen))
          return 1;
      }

  return 0;
}
