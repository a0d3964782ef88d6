/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * When to probe: the queue of watched processes whose next change of state
 * raises no event, each on its own backoff (probed soon after it entered its
 * state, then less and less often), and the one timer of the source that
 * wakes the owner when the first is due.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _ProcwatchProbeScheduler ProcwatchProbeScheduler;

/* Embedded in what is probed; zeroed means never scheduled. */
typedef struct
{
  GSequenceIter *iter;     /* in the queue; NULL when not scheduled */
  gint64 due;              /* monotonic time, in microseconds */
  gint64 interval;         /* the current step of the backoff */
  gint64 max_interval;     /* where the backoff stops; 0: the scheduler's */
  gpointer data;           /* what is probed, handed back when due */
} ProcwatchProbe;

ProcwatchProbeScheduler *procwatch_probe_scheduler_new      (GSource                 *source,
                                                             gint64                   min_interval,
                                                             gint64                   max_interval);
void                     procwatch_probe_scheduler_free     (ProcwatchProbeScheduler *self);
void                     procwatch_probe_schedule           (ProcwatchProbeScheduler *self,
                                                             ProcwatchProbe          *probe,
                                                             gboolean                 restart_backoff);
void                     procwatch_probe_unschedule         (ProcwatchProbeScheduler *self,
                                                             ProcwatchProbe          *probe);
void                     procwatch_probe_scheduler_take_due (ProcwatchProbeScheduler *self,
                                                             GPtrArray               *due);
void                     procwatch_probe_scheduler_update_timer (ProcwatchProbeScheduler *self);

G_END_DECLS
