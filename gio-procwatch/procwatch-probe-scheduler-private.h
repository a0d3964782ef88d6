/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * When to probe: the watched processes (and empty cgroups) whose next change
 * of state raises no event, each on its own schedule, and the one timer of
 * the source that wakes the owner when the first is due. Schedules are
 * rounded to a shared clock tick, coarser for longer intervals, so that
 * probes due about the same time are handled in one wake-up; scheduling and
 * unscheduling cost O(1) whatever the number of probes.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _ProcwatchProbeScheduler ProcwatchProbeScheduler;
typedef struct _ProcwatchProbe ProcwatchProbe;

/* Embedded in what is probed; zeroed means never scheduled. Times in the
 * scheduler's ticks wrap around (after 49 days) and are only compared as
 * differences. */
struct _ProcwatchProbe
{
  ProcwatchProbe *next;    /* in its slot of the wheel, when scheduled */
  ProcwatchProbe *prev;
  gpointer data;           /* what is probed, handed back when due */
  guint32 due;             /* tick at which it is due */
  guint32 since;           /* tick at which its schedule (re)started */
  gint32 interval;         /* the current step, in microseconds */
  /* Where the backoff stops, in milliseconds; 0: the scheduler's. Small
   * fields: one is embedded in every watch. */
  guint16 max_interval_ms;
  guint16 scheduled : 1;
  guint16 young : 1;         /* in its young phase, counted in n_young */
  guint16 backoff_only : 1;  /* no young phase: a plain backoff from the start */
  guint16 steps : 5;         /* probes since the schedule (re)started, while young */
};

ProcwatchProbeScheduler *procwatch_probe_scheduler_new      (GSource                 *source,
                                                             gint64                   min_interval,
                                                             gint64                   max_interval,
                                                             gint64                   young_interval,
                                                             gint64                   young_period);
void                     procwatch_probe_scheduler_free     (ProcwatchProbeScheduler *self);
void                     procwatch_probe_schedule           (ProcwatchProbeScheduler *self,
                                                             ProcwatchProbe          *probe,
                                                             gboolean                 restart_backoff);
void                     procwatch_probe_unschedule         (ProcwatchProbeScheduler *self,
                                                             ProcwatchProbe          *probe);
void                     procwatch_probe_scheduler_take_due (ProcwatchProbeScheduler *self,
                                                             GPtrArray               *due);
void                     procwatch_probe_scheduler_update_timer (ProcwatchProbeScheduler *self);
#ifdef PROCWATCH_TEST_SEAM
void                     procwatch_probe_scheduler_set_fake_time (ProcwatchProbeScheduler *self,
                                                                  gint64                   time_us);
#endif

static inline gboolean
procwatch_probe_is_scheduled (const ProcwatchProbe *probe)
{
  return probe->scheduled;
}

G_END_DECLS
