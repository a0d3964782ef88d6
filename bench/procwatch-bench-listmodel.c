/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench listmodel: what one removal and one append cost the list
 * model with 1 or N processes watched (issue 13; bench/README.md, section 6),
 * against a GListStore kept beside the monitor and the raw floor with and
 * without a GSequence.
 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

/* 6. The list model: one removal with 1 or N processes watched
 *
 * What issue 13 bounds: the library's part of an exit, from the main loop's
 * wake-up with the event pending to the end of "items-changed" (seen by the
 * "reaped" handler, which runs right after it), with N = 10,000 watched
 * against N = 1. Each repetition kills a random watched process and waits,
 * outside the timed span, until its parent has reaped it: exit and reap
 * then arrive in one wake-up, and neither the kernel's exit work nor the
 * scheduling of the dying process is in the figure. A new process is then
 * watched in its place (the append, timed too), so N stays constant. The
 * other removal, unwatch_process(), is timed around the call. Every span is
 * taken twice: wall time, and this thread's CPU time (which leaves out time
 * the scheduler gave to other work on this shared machine).
 *
 * Peers, each at every N:
 * - "monitor": ProcwatchProcessMonitor, a do-nothing items-changed handler.
 * - "liststore": the same monitor, its "reaped" handler (or, for unwatch,
 *   the caller) also removing the process from a GListStore kept beside
 *   it, as a design keeping its list in a GListStore must: it has the
 *   process, not its position, so it finds it (g_list_store_find, O(N)).
 * - "epoll": the floor, raw epoll_wait on the pidfds; a removal is
 *   EPOLL_CTL_DEL and close(), an append pidfd_open() and EPOLL_CTL_ADD.
 *   The kernel's share of the monitor's path, under the same conditions.
 * - "epoll-gsequence": the floor plus the list operations the monitor does
 *   (g_sequence_iter_get_position, g_sequence_remove; g_sequence_append,
 *   g_sequence_get_length): what its list costs when caches are cold.
 *
 * A monitor and an epoll set of 10,000 pidfds each would not fit under one
 * RLIMIT_NOFILE of 20,000: each (kind, N) lives in a worker process of its
 * own with its own sleeping processes, and the workers take turns block by
 * block, a different configuration first in every block. */

#define LIST_BATCH 500

typedef enum
{
  LIST_PEER_MONITOR,
  LIST_PEER_LISTSTORE,
  LIST_PEER_EPOLL,
  LIST_PEER_EPOLL_GSEQUENCE,
  N_LIST_PEERS
} ListPeer;

static const char *list_peer_names[N_LIST_PEERS] = {
  "monitor", "liststore", "epoll", "epoll-gsequence",
};

enum
{
  LIST_EXIT_WALL,
  LIST_EXIT_CPU,
  LIST_UNWATCH_WALL,
  LIST_UNWATCH_CPU,
  LIST_WATCH_WALL,
  LIST_WATCH_CPU,
  N_LIST_SERIES
};

static const char *list_series[N_LIST_SERIES][2] = {
  { "exit", "wall" }, { "exit", "cpu" },
  { "unwatch", "wall" }, { "unwatch", "cpu" },
  { "watch", "wall" }, { "watch", "cpu" },
};

/* A process watched by the floor peers. */
typedef struct
{
  GPid pid;
  int fd;
  GSequenceIter *item;
} ListEntry;

typedef struct
{
  guint n;
  gboolean is_monitor;
  GArray *fillers;  /* GPid: the N watched at the start */

  /* The sleeping processes, fillers first, then those watched in place of
   * the removed ones, a batch at a time; batches end only with the worker,
   * as some of each may still be watched. */
  GArray *spares;   /* BenchSleepers */
  guint next_spare; /* in the last batch */

  /* "monitor" and "liststore" */
  GMainContext *context;
  ProcwatchProcessMonitor *monitor;
  GPtrArray *held;     /* the watched processes, in no order */
  GListStore *store;   /* while "liststore" runs */
  gboolean reaped;
  gint64 reaped_ns;

  /* "epoll" and "epoll-gsequence" */
  int epoll_fd;
  GPtrArray *entries;  /* ListEntry, in no order */
  GSequence *sequence; /* while "epoll-gsequence" runs */

  GArray *samples[N_LIST_SERIES];
} ListRun;

static gint64
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

static GPid
list_take_spare (ListRun *run)
{
  BenchSleepers *batch = NULL;

  if (run->spares->len > 0)
    batch = &g_array_index (run->spares, BenchSleepers, run->spares->len - 1);

  if (batch == NULL || run->next_spare >= batch->pids->len)
    {
      BenchSleepers fresh = { 0 };

      if (!bench_sleepers_spawn (&fresh, LIST_BATCH))
        g_error ("procwatch-bench: cannot start more sleeping processes");
      g_array_append_val (run->spares, fresh);
      batch = &g_array_index (run->spares, BenchSleepers, run->spares->len - 1);
      run->next_spare = 0;
    }

  return g_array_index (batch->pids, GPid, run->next_spare++);
}

static void
list_store_drop (GListStore *store,
                 gpointer    item)
{
  guint position;

  if (g_list_store_find (store, item, &position))
    g_list_store_remove (store, position);
}

static void
on_list_reaped (ProcwatchProcessMonitor *monitor,
                ProcwatchProcess        *process,
                ListRun                 *run)
{
  if (run->store != NULL)
    list_store_drop (run->store, process);

  run->reaped_ns = bench_now_ns ();
  run->reaped = TRUE;
}

/* Keeps the compiler from dropping a position nobody reads. */
static volatile guint list_sink;

static void
list_sample (ListRun *run,
             gboolean record,
             int      series,
             gint64   value)
{
  if (record)
    g_array_append_val (run->samples[series], value);
}

static GPid
list_victim (ListRun *run,
             guint   *index)
{
  if (run->is_monitor)
    {
      *index = g_random_int_range (0, run->held->len);
      return procwatch_process_get_pid (g_ptr_array_index (run->held, *index));
    }

  *index = g_random_int_range (0, run->entries->len);
  return ((ListEntry *) g_ptr_array_index (run->entries, *index))->pid;
}

/* The floor's removal: what any watcher of pidfds does; with a sequence,
 * what the monitor's list does besides. */
static void
list_entry_drop (ListRun   *run,
                 ListEntry *entry)
{
  epoll_ctl (run->epoll_fd, EPOLL_CTL_DEL, entry->fd, NULL);
  close (entry->fd);
  entry->fd = -1;

  if (entry->item != NULL)
    {
      list_sink = g_sequence_iter_get_position (entry->item);
      g_sequence_remove (g_steal_pointer (&entry->item));
    }
}

static void
list_watch_spare (ListRun  *run,
                  gboolean  record)
{
  GPid pid = list_take_spare (run);
  gint64 t0, c0;

  if (run->is_monitor)
    {
      g_autoptr(GError) error = NULL;
      ProcwatchProcess *process;

      c0 = thread_cpu_ns ();
      t0 = bench_now_ns ();
      process = procwatch_process_monitor_watch_pid (run->monitor, pid, &error);
      if (process != NULL && run->store != NULL)
        g_list_store_append (run->store, process);
      list_sample (run, record, LIST_WATCH_WALL, bench_now_ns () - t0);
      list_sample (run, record, LIST_WATCH_CPU, thread_cpu_ns () - c0);

      if (process == NULL)
        g_error ("procwatch-bench: %s", error->message);
      g_ptr_array_add (run->held, process);
    }
  else
    {
      ListEntry *entry = g_new0 (ListEntry, 1);
      struct epoll_event event = { .events = EPOLLIN, .data.ptr = entry };

      entry->pid = pid;
      c0 = thread_cpu_ns ();
      t0 = bench_now_ns ();
      entry->fd = bench_pidfd_open (pid);
      if (entry->fd < 0 || epoll_ctl (run->epoll_fd, EPOLL_CTL_ADD, entry->fd, &event) < 0)
        g_error ("procwatch-bench: cannot watch %d: %s", (int) pid, g_strerror (errno));
      if (run->sequence != NULL)
        {
          entry->item = g_sequence_append (run->sequence, entry);
          list_sink = g_sequence_get_length (run->sequence);
        }
      list_sample (run, record, LIST_WATCH_WALL, bench_now_ns () - t0);
      list_sample (run, record, LIST_WATCH_CPU, thread_cpu_ns () - c0);

      g_ptr_array_add (run->entries, entry);
    }
}

/* Kills a random watched process and times its removal; a spare takes its
 * place. */
static void
list_exit_one (ListRun  *run,
               gboolean  record)
{
  guint index;
  GPid pid = list_victim (run, &index);
  int pidfd = bench_pidfd_open (pid);
  struct pollfd hangup = { pidfd, 0, 0 };
  gint64 c0, c1;

  if (pidfd < 0)
    g_error ("procwatch-bench: pidfd_open: %s", g_strerror (errno));

  if (run->is_monitor)
    while (g_main_context_iteration (run->context, FALSE))
      ;

  run->reaped = FALSE;
  kill (pid, SIGKILL);
  /* Reaped by its parent: the hang-up (kernel 6.9+). */
  while (poll (&hangup, 1, -1) < 0 && errno == EINTR)
    ;
  close (pidfd);

  if (run->is_monitor)
    {
      /* One iteration with the pidfd backend; the poll backend waits for
       * its probe. Only the iteration that delivers counts. */
      do
        {
          c0 = thread_cpu_ns ();
          g_main_context_iteration (run->context, TRUE);
          c1 = thread_cpu_ns ();
        }
      while (!run->reaped);

      list_sample (run, record, LIST_EXIT_WALL, run->reaped_ns - last_poll_return_ns);
      list_sample (run, record, LIST_EXIT_CPU, c1 - c0);
      g_ptr_array_remove_index_fast (run->held, index);
    }
  else
    {
      struct epoll_event event;
      gint64 t0;
      int n;

      c0 = thread_cpu_ns ();
      do
        n = epoll_wait (run->epoll_fd, &event, 1, -1);
      while (n < 0 && errno == EINTR);
      t0 = bench_now_ns ();
      g_assert (n == 1 && event.data.ptr == g_ptr_array_index (run->entries, index));
      list_entry_drop (run, event.data.ptr);
      list_sample (run, record, LIST_EXIT_WALL, bench_now_ns () - t0);
      list_sample (run, record, LIST_EXIT_CPU, thread_cpu_ns () - c0);
      g_ptr_array_remove_index_fast (run->entries, index);
    }

  list_watch_spare (run, record);
}

static void
list_unwatch_one (ListRun  *run,
                  gboolean  record)
{
  guint index;
  GPid pid = list_victim (run, &index);
  gint64 t0, c0;

  if (run->is_monitor)
    {
      ProcwatchProcess *process = g_ptr_array_index (run->held, index);

      while (g_main_context_iteration (run->context, FALSE))
        ;

      c0 = thread_cpu_ns ();
      t0 = bench_now_ns ();
      procwatch_process_monitor_unwatch_process (run->monitor, process);
      if (run->store != NULL)
        list_store_drop (run->store, process);
    }
  else
    {
      c0 = thread_cpu_ns ();
      t0 = bench_now_ns ();
      list_entry_drop (run, g_ptr_array_index (run->entries, index));
    }
  list_sample (run, record, LIST_UNWATCH_WALL, bench_now_ns () - t0);
  list_sample (run, record, LIST_UNWATCH_CPU, thread_cpu_ns () - c0);

  /* No longer watched: its parent reaps it, and no watcher hears of it. */
  kill (pid, SIGKILL);
  g_ptr_array_remove_index_fast (run->is_monitor ? run->held : run->entries, index);
  list_watch_spare (run, record);
}

static void
list_run_init (ListRun  *run,
               guint     n,
               gboolean  is_monitor)
{
  guint i;

  run->n = n;
  run->is_monitor = is_monitor;
  run->spares = g_array_new (FALSE, FALSE, sizeof (BenchSleepers));
  run->epoll_fd = -1;
  for (i = 0; i < N_LIST_SERIES; i++)
    run->samples[i] = g_array_new (FALSE, FALSE, sizeof (gint64));

  /* In batches of the spares' size: the parent of a killed process walks
   * all its children to reap it, which flushes caches in proportion; with
   * one parent of 10,000, N = 10,000 would pay for that and N = 1 not. */
  run->fillers = g_array_new (FALSE, FALSE, sizeof (GPid));
  while (run->fillers->len < n)
    {
      BenchSleepers *batch;
      guint size = MIN (n - run->fillers->len, LIST_BATCH);

      g_array_set_size (run->spares, run->spares->len + 1);
      batch = &g_array_index (run->spares, BenchSleepers, run->spares->len - 1);
      if (!bench_sleepers_spawn (batch, size))
        _exit (1);
      g_array_append_vals (run->fillers, batch->pids->data, size);
      run->next_spare = size;
    }

  if (!is_monitor)
    {
      run->epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
      run->entries = g_ptr_array_new_with_free_func (g_free);
      for (i = 0; i < n; i++)
        {
          ListEntry *entry = g_new0 (ListEntry, 1);
          struct epoll_event event = { .events = EPOLLIN, .data.ptr = entry };

          entry->pid = g_array_index (run->fillers, GPid, i);
          entry->fd = bench_pidfd_open (entry->pid);
          if (entry->fd < 0 || epoll_ctl (run->epoll_fd, EPOLL_CTL_ADD, entry->fd, &event) < 0)
            g_error ("procwatch-bench: cannot watch %d: %s", (int) entry->pid, g_strerror (errno));
          g_ptr_array_add (run->entries, entry);
        }
      return;
    }

  run->context = g_main_context_new ();
  g_main_context_set_poll_func (run->context, timed_poll);
  g_main_context_push_thread_default (run->context);
  run->monitor = procwatch_process_monitor_new ();
  g_main_context_pop_thread_default (run->context);
  run->held = g_ptr_array_new_with_free_func (g_object_unref);

  g_signal_connect (run->monitor, "items-changed", G_CALLBACK (on_list_items_changed), NULL);
  g_signal_connect (run->monitor, "reaped", G_CALLBACK (on_list_reaped), run);

  for (i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      GPid pid = g_array_index (run->fillers, GPid, i);
      ProcwatchProcess *process = procwatch_process_monitor_watch_pid (run->monitor, pid, &error);

      if (process == NULL)
        g_error ("procwatch-bench: %s", error->message);
      g_ptr_array_add (run->held, process);
    }
}

/* The list a peer keeps besides, built before its block, outside any span:
 * the GListStore in the monitor's order, the sequence in the entries'. */
static void
list_peer_start (ListRun  *run,
                 ListPeer  peer)
{
  guint i;

  if (peer == LIST_PEER_LISTSTORE)
    {
      GListModel *model = G_LIST_MODEL (run->monitor);
      guint n = g_list_model_get_n_items (model);

      run->store = g_list_store_new (PROCWATCH_TYPE_PROCESS);
      g_signal_connect (run->store, "items-changed", G_CALLBACK (on_list_items_changed), NULL);
      for (i = 0; i < n; i++)
        {
          g_autoptr(GObject) item = g_list_model_get_item (model, i);

          g_list_store_append (run->store, item);
        }
    }
  else if (peer == LIST_PEER_EPOLL_GSEQUENCE)
    {
      run->sequence = g_sequence_new (NULL);
      for (i = 0; i < run->entries->len; i++)
        {
          ListEntry *entry = g_ptr_array_index (run->entries, i);

          entry->item = g_sequence_append (run->sequence, entry);
        }
    }
}

static void
list_peer_stop (ListRun *run)
{
  guint i;

  g_clear_object (&run->store);
  if (run->sequence != NULL)
    {
      for (i = 0; i < run->entries->len; i++)
        ((ListEntry *) g_ptr_array_index (run->entries, i))->item = NULL;
      g_clear_pointer (&run->sequence, g_sequence_free);
    }
}

static void
list_print_block (ListRun  *run,
                  ListPeer  peer)
{
  guint k;

  for (k = 0; k < N_LIST_SERIES; k++)
    {
      g_autofree char *fields = g_strdup_printf ("\"peer\": \"%s\", \"n\": %u, \"op\": \"%s\", "
                                                 "\"clock\": \"%s\"",
                                                 list_peer_names[peer], run->n,
                                                 list_series[k][0], list_series[k][1]);

      if (run->samples[k]->len > 0)
        print_samples ("listmodel", fields, (gint64 *) run->samples[k]->data,
                       run->samples[k]->len);
      g_array_set_size (run->samples[k], 0);
    }
}

/* Commands: 'w' or 'b' and a peer (a warm-up block, or a recorded one),
 * 'q' to end. Answers 'r' once set up, 'd' after each block. */
G_GNUC_NORETURN static void
list_worker (guint     n,
             gboolean  is_monitor,
             int       command_fd,
             int       ack_fd)
{
  ListRun run = { 0 };
  char command[2];
  guint i;

  list_run_init (&run, n, is_monitor);
  if (is_monitor && !monitor_backend_ok (run.monitor))
    _exit (3);
  io_write_all (ack_fd, "r", 1);

  while (io_read_all (command_fd, command, 1) && command[0] != 'q' &&
         io_read_all (command_fd, command + 1, 1))
    {
      ListPeer peer = command[1];
      gboolean record = command[0] == 'b';

      list_peer_start (&run, peer);
      /* The two removals alternate, each followed by an append. */
      for (i = 0; i < (guint) opt_rounds; i++)
        {
          list_exit_one (&run, record);
          list_unwatch_one (&run, record);
        }
      list_peer_stop (&run);

      if (record)
        list_print_block (&run, peer);
      io_write_all (ack_fd, "d", 1);
    }

  if (run.monitor != NULL)
    {
      g_ptr_array_unref (run.held);
      g_object_unref (run.monitor);
    }
  if (run.entries != NULL)
    {
      for (i = 0; i < run.entries->len; i++)
        close (((ListEntry *) g_ptr_array_index (run.entries, i))->fd);
      g_ptr_array_unref (run.entries);
      close (run.epoll_fd);
    }
  for (i = 0; i < run.spares->len; i++)
    bench_sleepers_finish (&g_array_index (run.spares, BenchSleepers, i));
  _exit (0);
}

static void
list_worker_start (Worker   *worker,
                   guint     n,
                   gboolean  is_monitor)
{
  int command_fd, ack_fd;

  if (worker_fork (worker, &command_fd, &ack_fd))
    list_worker (n, is_monitor, command_fd, ack_fd);
}

int
cmd_listmodel (void)
{
  g_autoptr(GArray) sizes = parse_sizes (opt_sizes, "1,10000");
  typedef struct { guint size; ListPeer peer; } Config;
  g_autoptr(GArray) configs = g_array_new (FALSE, FALSE, sizeof (Config));
  Worker *workers;
  int *started;   /* 1: running; -1: could not be set up */
  guint s, c;
  int block;

  bench_raise_fd_limit ();

  /* Worker 2 s is the monitor's at sizes[s], 2 s + 1 the floor's. */
  workers = g_new0 (Worker, 2 * sizes->len);
  started = g_new0 (int, 2 * sizes->len);
  for (s = 0; s < sizes->len; s++)
    {
      ListPeer peer;

      for (peer = 0; peer < N_LIST_PEERS; peer++)
        {
          guint w = 2 * s + (peer >= LIST_PEER_EPOLL);
          Config config = { s, peer };

          if (!list_has (opt_peers, list_peer_names[peer]) || started[w] < 0)
            continue;

          if (started[w] == 0)
            {
              list_worker_start (&workers[w], g_array_index (sizes, guint, s), w % 2 == 0);
              if (!worker_ask (&workers[w], 'r'))
                {
                  /* The monitor is not on the backend asked for: said so. */
                  waitpid (workers[w].pid, NULL, 0);
                  close (workers[w].command_fd);
                  close (workers[w].ack_fd);
                  started[w] = -1;
                  continue;
                }
              started[w] = 1;
            }
          g_array_append_val (configs, config);
        }
    }

  /* Block -1 warms every configuration up and is not recorded. */
  for (block = -1; block < opt_blocks; block++)
    for (c = 0; c < configs->len; c++)
      {
        Config *config = &g_array_index (configs, Config, (c + MAX (block, 0)) % configs->len);
        Worker *worker = &workers[2 * config->size + (config->peer >= LIST_PEER_EPOLL)];
        char command[2] = { block < 0 ? 'w' : 'b', config->peer };
        char reply = 0;

        io_write_all (worker->command_fd, command, 2);
        if (!io_read_all (worker->ack_fd, &reply, 1) || reply != 'd')
          g_error ("procwatch-bench: list-model worker failed");
      }

  for (s = 0; s < 2 * sizes->len; s++)
    if (started[s] > 0)
      worker_stop (&workers[s]);

  g_free (workers);
  g_free (started);
  return 0;
}
