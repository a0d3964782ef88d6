/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include "procwatch-probe-scheduler-private.h"
#include "procwatch-source-private.h"

/* Probes handed over per dispatch of the timer, at most, so that many due
 * probes cannot stall the main loop; the rest are due at once in the next
 * iteration. */
#define PROBE_BATCH 256

struct _ProcwatchProbeScheduler
{
  GSource *source;
  GSequence *queue;   /* ProcwatchProbe, soonest due first */
  gint64 min_interval;
  gint64 max_interval;
};

ProcwatchProbeScheduler *
procwatch_probe_scheduler_new (GSource *source,
                               gint64   min_interval,
                               gint64   max_interval)
{
  ProcwatchProbeScheduler *self = g_new0 (ProcwatchProbeScheduler, 1);

  self->source = g_source_ref (source);
  self->queue = g_sequence_new (NULL);
  self->min_interval = min_interval;
  self->max_interval = max_interval;

  return self;
}

void
procwatch_probe_scheduler_free (ProcwatchProbeScheduler *self)
{
  g_sequence_free (self->queue);
  g_source_unref (self->source);
  g_free (self);
}

static int
compare_due (gconstpointer a,
             gconstpointer b,
             gpointer      user_data)
{
  const ProcwatchProbe *probe_a = a;
  const ProcwatchProbe *probe_b = b;

  return (probe_a->due > probe_b->due) - (probe_a->due < probe_b->due);
}

/* Sets the source's timer to the first probe due, or to never. */
void
procwatch_probe_scheduler_update_timer (ProcwatchProbeScheduler *self)
{
  GSequenceIter *first = g_sequence_get_begin_iter (self->queue);
  gint64 ready_time = -1;

  if (!g_sequence_iter_is_end (first))
    ready_time = ((ProcwatchProbe *) g_sequence_get (first))->due;

  procwatch_source_set_timer (self->source, ready_time);
}

/* (Re)schedules @probe one step further on its backoff, or at its first
 * step with @restart_backoff. */
void
procwatch_probe_schedule (ProcwatchProbeScheduler *self,
                          ProcwatchProbe          *probe,
                          gboolean                 restart_backoff)
{
  if (restart_backoff || probe->interval == 0)
    probe->interval = self->min_interval;
  else
    probe->interval = MIN (probe->interval * 2,
                           probe->max_interval > 0 ? probe->max_interval : self->max_interval);

  if (probe->iter != NULL)
    g_sequence_remove (probe->iter);

  probe->due = g_get_monotonic_time () + probe->interval;
  probe->iter = g_sequence_insert_sorted (self->queue, probe, compare_due, NULL);
  procwatch_probe_scheduler_update_timer (self);
}

void
procwatch_probe_unschedule (ProcwatchProbeScheduler *self,
                            ProcwatchProbe          *probe)
{
  if (probe->iter == NULL)
    return;

  g_sequence_remove (probe->iter);
  probe->iter = NULL;
  procwatch_probe_scheduler_update_timer (self);
}

/* Takes the probes that are due out of the queue, a batch at most, and adds
 * their data to @due. The timer is left for the caller to update once it
 * has probed (and maybe rescheduled) them. */
void
procwatch_probe_scheduler_take_due (ProcwatchProbeScheduler *self,
                                    GPtrArray               *due)
{
  gint64 now = g_get_monotonic_time ();
  GSequenceIter *iter;
  guint taken = 0;

  while (taken < PROBE_BATCH &&
         !g_sequence_iter_is_end (iter = g_sequence_get_begin_iter (self->queue)))
    {
      ProcwatchProbe *probe = g_sequence_get (iter);

      if (probe->due > now)
        break;

      g_sequence_remove (iter);
      probe->iter = NULL;
      g_ptr_array_add (due, probe->data);
      taken++;
    }
}
