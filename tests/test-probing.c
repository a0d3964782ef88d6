/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Finding changes of state by probing: the probe scheduler on a clock the
 * test sets, then the monitor on real processes with the backends that
 * probe (poll; pidfd without the reap hang-up, for the reap).
 */

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-backend-private.h"
#include "procwatch-probe-scheduler-private.h"
#include "procwatch-process-private.h"
#include "procwatch-test-util.h"
#include "procwatch-watch-private.h"

#define MS G_TIME_SPAN_MILLISECOND

/* Somewhere past the boot, in microseconds; and just before the scheduler's
 * 32-bit millisecond ticks wrap around. */
#define SOME_TIME (G_GINT64_CONSTANT (1000000) * 1000000)
#define BEFORE_WRAP ((G_GINT64_CONSTANT (1) << 32) * 1000 - 700 * MS)

typedef struct
{
  GSource *source;
  ProcwatchProbeScheduler *scheduler;
  gint64 now;
} Clock;

static void
clock_init (Clock  *clock,
            gint64  start)
{
  clock->source = g_timeout_source_new (G_MAXUINT);
  /* The poll backend's schedule. */
  clock->scheduler = procwatch_probe_scheduler_new (clock->source, 10 * MS, 1000 * MS,
                                                    2 * MS, 1000 * MS);
  clock->now = start;
  procwatch_probe_scheduler_set_fake_time (clock->scheduler, start);
}

static void
clock_clear (Clock *clock)
{
  procwatch_probe_scheduler_free (clock->scheduler);
  g_source_unref (clock->source);
}

static void
clock_set (Clock  *clock,
           gint64  now)
{
  clock->now = now;
  procwatch_probe_scheduler_set_fake_time (clock->scheduler, now);
}

/* Everything due now, however many dispatches it takes. */
static GPtrArray *
clock_take_all (Clock *clock)
{
  GPtrArray *due = g_ptr_array_new ();
  guint before;

  /* As the source does before it calls its owner. */
  g_source_set_ready_time (clock->source, -1);
  do
    {
      before = due->len;
      procwatch_probe_scheduler_take_due (clock->scheduler, due);
    }
  while (due->len > before);

  procwatch_probe_scheduler_update_timer (clock->scheduler);
  return due;
}

/* The young phase, then the backoff: every 2 ms (plus up to the 1-ms
 * tick) for a second, then doubling up to a second. */
static void
test_young_then_backoff (void)
{
  Clock clock;
  ProcwatchProbe probe = { 0 };
  gint64 start = SOME_TIME;
  guint young_probes = 0;
  gint64 last_interval = 0;

  clock_init (&clock, start);
  procwatch_probe_schedule (clock.scheduler, &probe, TRUE);

  while (probe.interval < 1000 * MS)
    {
      g_autoptr(GPtrArray) due = NULL;
      gint64 ready = g_source_get_ready_time (clock.source);

      /* The timer says when: nothing is due before it. */
      g_assert_cmpint (ready, >, clock.now - 1000);
      clock_set (&clock, ready - 1);
      due = clock_take_all (&clock);
      g_assert_cmpuint (due->len, ==, 0);

      clock_set (&clock, ready);
      g_ptr_array_unref (g_steal_pointer (&due));
      due = clock_take_all (&clock);
      g_assert_cmpuint (due->len, ==, 1);
      g_assert_false (procwatch_probe_is_scheduled (&probe));

      if (clock.now - start < 1000 * MS)
        {
          g_assert_cmpint (probe.interval, ==, 2 * MS);
          young_probes++;
        }
      else
        {
          /* Out of the young phase: doubling. */
          g_assert_cmpint (probe.interval, >=, last_interval);
        }

      last_interval = probe.interval;
      procwatch_probe_schedule (clock.scheduler, &probe, FALSE);
    }

  /* A probe every 2 to 3 ms during the first second. */
  g_assert_cmpuint (young_probes, >=, 330);
  g_assert_cmpuint (young_probes, <=, 1000);
  g_assert_cmpint (probe.interval, ==, 1000 * MS);

  /* A change of state starts the young phase again. */
  procwatch_probe_schedule (clock.scheduler, &probe, TRUE);
  g_assert_cmpint (probe.interval, ==, 2 * MS);
  procwatch_probe_unschedule (clock.scheduler, &probe);
  g_assert_cmpint (g_source_get_ready_time (clock.source), ==, -1);

  clock_clear (&clock);
}

/* Watched all at once, young processes share a probing budget, yet are
 * never probed less often than by the plain backoff (10, 20, 40 ms ...);
 * backoff-only probes have no young phase. */
static void
test_young_budget (void)
{
  const guint n = 10000;
  Clock clock;
  g_autofree ProcwatchProbe *probes = g_new0 (ProcwatchProbe, n);
  ProcwatchProbe plain = { .backoff_only = TRUE };
  guint i;

  clock_init (&clock, SOME_TIME);
  for (i = 0; i < n; i++)
    procwatch_probe_schedule (clock.scheduler, &probes[i], TRUE);

  g_assert_cmpint (probes[0].interval, ==, 2 * MS);
  g_assert_cmpint (probes[20].interval, >, 2 * MS);
  g_assert_cmpint (probes[20].interval, <, 10 * MS);
  g_assert_cmpint (probes[n - 1].interval, ==, 10 * MS);

  /* The budget's interval (2 s for 10,000) caps nothing: the plain
   * backoff does, doubling at each probe. */
  procwatch_probe_schedule (clock.scheduler, &probes[n - 1], FALSE);
  g_assert_cmpint (probes[n - 1].interval, ==, 20 * MS);
  procwatch_probe_schedule (clock.scheduler, &probes[n - 1], FALSE);
  g_assert_cmpint (probes[n - 1].interval, ==, 40 * MS);

  procwatch_probe_schedule (clock.scheduler, &plain, TRUE);
  g_assert_cmpint (plain.interval, ==, 10 * MS);

  /* Once they leave, a new young one is probed often again. */
  for (i = 0; i < n; i++)
    procwatch_probe_unschedule (clock.scheduler, &probes[i]);
  procwatch_probe_schedule (clock.scheduler, &probes[0], TRUE);
  g_assert_cmpint (probes[0].interval, ==, 2 * MS);

  procwatch_probe_unschedule (clock.scheduler, &probes[0]);
  procwatch_probe_unschedule (clock.scheduler, &plain);
  clock_clear (&clock);
}

/* Long-lived probes scheduled a few milliseconds apart are due together:
 * one wake-up for all. */
static void
test_shared_tick (void)
{
  const guint n = 100;
  Clock clock;
  g_autofree ProcwatchProbe *probes = g_new0 (ProcwatchProbe, n);
  g_autoptr(GPtrArray) due = NULL;
  guint32 first_due;
  guint i;

  clock_init (&clock, SOME_TIME);
  for (i = 0; i < n; i++)
    {
      probes[i].backoff_only = TRUE;
      probes[i].interval = 500 * MS;
    }

  /* Spread over 20 ms, aligned so that none straddles a 64 ms granule. */
  clock_set (&clock, SOME_TIME - SOME_TIME % (64 * MS));
  for (i = 0; i < n; i++)
    {
      clock_set (&clock, clock.now + 200);
      procwatch_probe_schedule (clock.scheduler, &probes[i], FALSE);
      g_assert_cmpint (probes[i].interval, ==, 1000 * MS);
    }

  first_due = probes[0].due;
  for (i = 1; i < n; i++)
    g_assert_cmpuint (probes[i].due, ==, first_due);

  /* Late by less than the granule (64 ms for 1 s), never early. */
  g_assert_cmpint (g_source_get_ready_time (clock.source), <, clock.now - 20 * MS + 1064 * MS);
  g_assert_cmpint (g_source_get_ready_time (clock.source), >=, clock.now + 1000 * MS - 1000);

  clock_set (&clock, g_source_get_ready_time (clock.source));
  due = clock_take_all (&clock);
  g_assert_cmpuint (due->len, ==, n);
  g_assert_cmpint (g_source_get_ready_time (clock.source), ==, -1);

  clock_clear (&clock);
}

/* Random schedules, unschedules and jumps of the clock, against what the
 * scheduler promises: a probe is handed over once per schedule, not before
 * its interval (less the 1-ms tick), and none is left overdue; the timer is
 * never later than the first probe due. */
static void
check_random_operations (gint64 start)
{
  const guint n = 300;
  Clock clock;
  g_autofree ProcwatchProbe *probes = g_new0 (ProcwatchProbe, n);
  g_autofree gint64 *asked = g_new0 (gint64, n);
  guint step;
  guint i;

  clock_init (&clock, start);
  for (i = 0; i < n; i++)
    {
      probes[i].data = GUINT_TO_POINTER (i);
      /* Some as the cgroups' removal probes: plain backoff up to 5 s,
       * further than the wheel's two seconds. */
      if (i % 7 == 0)
        {
          probes[i].backoff_only = TRUE;
          probes[i].max_interval_ms = 5000;
        }
    }

  for (step = 0; step < 20000; step++)
    {
      guint32 now_tick;
      int op = g_test_rand_int_range (0, 10);

      i = g_test_rand_int_range (0, n);
      if (op < 4)
        {
          procwatch_probe_schedule (clock.scheduler, &probes[i], op == 0);
          asked[i] = clock.now + probes[i].interval;
        }
      else if (op < 5)
        {
          procwatch_probe_unschedule (clock.scheduler, &probes[i]);
        }
      else
        {
          g_autoptr(GPtrArray) due = NULL;
          guint j;

          clock_set (&clock, clock.now + (op == 9 && step % 50 == 0
                                          ? g_test_rand_int_range (0, 3000) * MS
                                          : g_test_rand_int_range (0, 5000)));
          due = clock_take_all (&clock);
          for (j = 0; j < due->len; j++)
            {
              guint k = GPOINTER_TO_UINT (g_ptr_array_index (due, j));
              ProcwatchProbe *probe = &probes[k];

              g_assert_false (procwatch_probe_is_scheduled (probe));
              /* Not early, but for the tick. */
              g_assert_cmpint (clock.now, >=, asked[k] - 1000);
              asked[k] = G_MAXINT64;
            }
        }

      now_tick = (guint32) (clock.now / 1000);
      for (i = 0; i < n; i++)
        {
          gint64 ready = g_source_get_ready_time (clock.source);

          if (!procwatch_probe_is_scheduled (&probes[i]))
            continue;

          g_assert_cmpint (asked[i], !=, G_MAXINT64);
          g_assert_cmpint (ready, >=, 0);
          /* The timer: no later than this probe's tick. */
          g_assert_cmpint ((gint32) (probes[i].due - (guint32) (ready / 1000)), >=, 0);
          /* Nothing overdue once the due ones were taken. */
          if (op >= 5)
            g_assert_cmpint ((gint32) (probes[i].due - now_tick), >, 0);
        }
    }

  for (i = 0; i < n; i++)
    procwatch_probe_unschedule (clock.scheduler, &probes[i]);
  g_assert_cmpint (g_source_get_ready_time (clock.source), ==, -1);
  clock_clear (&clock);
}

static void
test_random_operations (void)
{
  check_random_operations (SOME_TIME);
}

static void
test_tick_wraparound (void)
{
  check_random_operations (BEFORE_WRAP);
}

/* The monitor on real processes. */

static gboolean
backend_probes (ProcwatchProcessMonitor *monitor,
                ProcwatchProcessState    state)
{
  const ProcwatchBackend *backend = procwatch_backend_choose (procwatch_process_monitor_get_backend (monitor));

  return backend->needs_probe (backend, state);
}

/* Iterates until the probing of @process has backed off all the way: the
 * process is long-lived as far as the monitor knows. */
static void
run_until_long_lived (ProcwatchProcessMonitor *monitor,
                      ProcwatchProcess        *process)
{
  const ProcwatchBackend *backend = procwatch_backend_choose (procwatch_process_monitor_get_backend (monitor));
  ProcwatchWatch *watch = procwatch_process_get_watch (process);

  while (watch->probe.interval < backend->probe_max_interval)
    g_main_context_iteration (NULL, TRUE);
}

/* A process that exits, and is reaped, long after it was watched: found by
 * the slow probes of a long-lived process, once each. */
static void
test_long_lived (gconstpointer data)
{
  TestFixture fixture;
  g_autoptr(ProcwatchProcess) process = NULL;

  test_fixture_set_up_target (&fixture, data);
  process = procwatch_process_monitor_watch_pid (fixture.monitor, fixture.pid, NULL);
  g_assert_nonnull (process);

  if (backend_probes (fixture.monitor, PROCWATCH_PROCESS_STATE_RUNNING))
    run_until_long_lived (fixture.monitor, process);

  test_process_exit (fixture.target, 3);
  test_run_until_count (NULL, &fixture.recorder->n_exited, 1);
  g_assert_cmpuint (fixture.recorder->n_reaped, ==, 0);

  if (backend_probes (fixture.monitor, PROCWATCH_PROCESS_STATE_EXITED))
    run_until_long_lived (fixture.monitor, process);

  test_process_reap (fixture.target);
  test_run_until_count (NULL, &fixture.recorder->n_reaped, 1);
  g_assert_cmpuint (test_recorder_count (fixture.recorder, fixture.pid,
                                         PROCWATCH_PROCESS_STATE_EXITED), ==, 1);
  g_assert_cmpuint (test_recorder_count (fixture.recorder, fixture.pid,
                                         PROCWATCH_PROCESS_STATE_REAPED), ==, 1);

  test_fixture_tear_down (&fixture, data);
}

typedef struct
{
  ProcwatchProcessMonitor *monitor;
  ProcwatchProcess *processes[2];
  guint n_exited;
} Pair;

static void
on_exited_unwatch_other (ProcwatchProcessMonitor *monitor,
                         ProcwatchProcess        *process,
                         Pair                    *pair)
{
  guint i;

  pair->n_exited++;
  for (i = 0; i < 2; i++)
    if (pair->processes[i] != process)
      procwatch_process_monitor_unwatch_process (monitor, pair->processes[i]);
}

/* Two processes found exited by the probes of one wake-up: the handler of
 * the first unwatches the second, which is then not reported, although it
 * was due in the same tick (both were watched together and died before the
 * monitor looked). */
static void
test_unwatch_in_due_tick (gconstpointer data)
{
  TestProcessKind kind = GPOINTER_TO_INT (data);
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) first = test_process_spawn (kind);
  g_autoptr(TestProcess) second = test_process_spawn (kind);
  Pair pair = { monitor, { NULL, NULL }, 0 };
  guint i;

  if (!backend_probes (monitor, PROCWATCH_PROCESS_STATE_RUNNING))
    {
      g_test_skip ("this backend is told of exits, it does not probe for them");
      test_process_exit (first, 0);
      test_process_exit (second, 0);
      test_process_reap (first);
      test_process_reap (second);
      return;
    }

  pair.processes[0] = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (first), NULL);
  pair.processes[1] = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (second), NULL);
  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited_unwatch_other), &pair);

  /* Both dead before the monitor looks again: the main loop has not run
   * since they were watched. */
  test_process_exit (first, 0);
  test_process_exit (second, 0);
  test_process_await_exit (first);
  test_process_await_exit (second);

  test_run_until_count (NULL, &recorder->n_exited, 1);
  test_drain_context (NULL);

  g_assert_cmpuint (pair.n_exited, ==, 1);
  g_assert_cmpuint (recorder->n_exited, ==, 1);
  g_assert_cmpuint (recorder->n_reaped, ==, 0);

  /* The one reported is reaped in its turn; the other, never. */
  test_process_reap (first);
  test_process_reap (second);
  test_run_until_count (NULL, &recorder->n_reaped, 1);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->n_exited, ==, 1);
  g_assert_cmpuint (recorder->n_reaped, ==, 1);
  g_assert_cmpuint (test_recorder_count (recorder, test_process_get_pid (first),
                                         PROCWATCH_PROCESS_STATE_REAPED) +
                    test_recorder_count (recorder, test_process_get_pid (first),
                                         PROCWATCH_PROCESS_STATE_EXITED), !=, 1);

  g_signal_handlers_disconnect_by_data (monitor, &pair);
  for (i = 0; i < 2; i++)
    g_clear_object (&pair.processes[i]);
}

/* More processes die together than one dispatch probes (256): each is
 * reported exited once, then reaped once, in that order. */
static void
test_many_due (gconstpointer data)
{
  const guint n = 300;
  TestProcessKind kind = GPOINTER_TO_INT (data);
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(GPtrArray) targets = g_ptr_array_new_with_free_func ((GDestroyNotify) test_process_free);
  g_autoptr(GPtrArray) processes = g_ptr_array_new_with_free_func (g_object_unref);
  guint i;

  /* A few pipes per process for the test, a pidfd for the monitor: more
   * than the usual soft limit of 1024. */
  if (!test_raise_fd_limit (n * 8 + 64))
    {
      g_test_skip ("RLIMIT_NOFILE's hard limit is below the 2,464 fds of 300 processes");
      return;
    }

  for (i = 0; i < n; i++)
    {
      TestProcess *target = test_process_spawn (kind);

      g_ptr_array_add (targets, target);
      g_ptr_array_add (processes,
                       procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target),
                                                            NULL));
    }

  for (i = 0; i < n; i++)
    test_process_exit (g_ptr_array_index (targets, i), 0);
  for (i = 0; i < n; i++)
    test_process_await_exit (g_ptr_array_index (targets, i));
  test_run_until_count (NULL, &recorder->n_exited, n);
  g_assert_cmpuint (recorder->n_reaped, ==, 0);

  for (i = 0; i < n; i++)
    test_process_reap (g_ptr_array_index (targets, i));
  test_run_until_count (NULL, &recorder->n_reaped, n);
  test_drain_context (NULL);

  for (i = 0; i < n; i++)
    {
      GPid pid = test_process_get_pid (g_ptr_array_index (targets, i));

      g_assert_cmpuint (test_recorder_count (recorder, pid, PROCWATCH_PROCESS_STATE_EXITED), ==, 1);
      g_assert_cmpuint (test_recorder_count (recorder, pid, PROCWATCH_PROCESS_STATE_REAPED), ==, 1);
    }
  g_assert_cmpuint (recorder->n_exited, ==, n);
  g_assert_cmpuint (recorder->n_reaped, ==, n);
}

int
main (int   argc,
      char *argv[])
{
  test_init (&argc, &argv);

  g_test_add_func ("/probing/scheduler/young-then-backoff", test_young_then_backoff);
  g_test_add_func ("/probing/scheduler/young-budget", test_young_budget);
  g_test_add_func ("/probing/scheduler/shared-tick", test_shared_tick);
  g_test_add_func ("/probing/scheduler/random-operations", test_random_operations);
  g_test_add_func ("/probing/scheduler/tick-wraparound", test_tick_wraparound);
  test_add_for_each_kind ("/probing/monitor", "long-lived", test_long_lived);
  test_add_for_each_kind ("/probing/monitor", "unwatch-in-due-tick", test_unwatch_in_due_tick);
  test_add_for_each_kind ("/probing/monitor", "many-due", test_many_due);

  return g_test_run ();
}
