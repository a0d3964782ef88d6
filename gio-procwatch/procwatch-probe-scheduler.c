/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * A timer wheel: one slot per millisecond tick over two seconds, each slot
 * an intrusive list of the probes due at that tick (or at that tick a lap
 * or more later: those are passed over until their lap comes), and a bitmap
 * of the slots in use, so that the next due slot is found in a few word
 * operations. A probe's deadline is rounded up to a granule of at most 1/8
 * of its interval (in powers of two ticks): a watch probed once a second is
 * due on a 64 ms boundary, and all those due on it share one wake-up.
 *
 * Young processes: most short-lived processes die soon after they are
 * watched, so a schedule (re)started with a young period is probed at the
 * young interval for that period, then backs off, doubling, up to its
 * maximum. Young probing shares a budget: with many young probes at once
 * (a mass watch) their interval stretches so that together they cost at
 * most YOUNG_PROBES_PER_SECOND, but never beyond the plain backoff from the
 * minimum interval (10, 20, 40 ms ... for the poll backend): a mass watch is
 * probed as often as before the young phase existed.
 */

#include "config.h"

#include "procwatch-probe-scheduler-private.h"
#include "procwatch-source-private.h"

/* Probes handed over per dispatch of the timer, at most, so that many due
 * probes cannot stall the main loop; the rest are due at once in the next
 * iteration. */
#define PROBE_BATCH 256

#define TICK_US 1000
#define N_SLOTS 2048
#define SLOT_MASK (N_SLOTS - 1)
#define N_WORDS (N_SLOTS / 64)

/* About 20 ms of CPU per second for a /proc read of 4 µs. */
#define YOUNG_PROBES_PER_SECOND 5000

struct _ProcwatchProbeScheduler
{
  GSource *source;
  gint64 min_interval;
  gint64 max_interval;
  gint64 young_interval;
  guint32 young_period;     /* in ticks; 0: no young phase */

  guint n_scheduled;
  guint n_young;
  guint32 cursor;           /* the first tick not yet taken */
  gint64 ready_time;        /* what the source's timer is set to, -1: none */
#ifdef PROCWATCH_TEST_SEAM
  gint64 fake_now;          /* the time, if not 0 */
#endif

  guint64 used[N_WORDS];    /* which slots hold probes */
  ProcwatchProbe *slots[N_SLOTS];
};

static inline gint64
now_us (ProcwatchProbeScheduler *self)
{
#ifdef PROCWATCH_TEST_SEAM
  if (self->fake_now != 0)
    return self->fake_now;
#endif
  return g_get_monotonic_time ();
}

static inline guint32
tick_of (gint64 time_us)
{
  return (guint32) (time_us / TICK_US);
}

/* Whether tick @a comes no later than @b, across the wrap-around. */
static inline gboolean
tick_le (guint32 a,
         guint32 b)
{
  return (gint32) (a - b) <= 0;
}

ProcwatchProbeScheduler *
procwatch_probe_scheduler_new (GSource *source,
                               gint64   min_interval,
                               gint64   max_interval,
                               gint64   young_interval,
                               gint64   young_period)
{
  ProcwatchProbeScheduler *self = g_new0 (ProcwatchProbeScheduler, 1);

  self->source = g_source_ref (source);
  self->min_interval = min_interval;
  self->max_interval = max_interval;
  self->young_interval = young_interval;
  self->young_period = (guint32) (young_period / TICK_US);
  self->ready_time = -1;
  self->cursor = tick_of (now_us (self));

  return self;
}

void
procwatch_probe_scheduler_free (ProcwatchProbeScheduler *self)
{
  g_source_unref (self->source);
  g_free (self);
}

#ifdef PROCWATCH_TEST_SEAM
/* Freezes the scheduler's clock at @time_us (0: the real clock). */
void
procwatch_probe_scheduler_set_fake_time (ProcwatchProbeScheduler *self,
                                         gint64                   time_us)
{
  self->fake_now = time_us;
  if (self->n_scheduled == 0)
    self->cursor = tick_of (now_us (self));
}
#endif

static void
set_ready_time (ProcwatchProbeScheduler *self,
                gint64                   ready_time)
{
  if (self->ready_time == ready_time)
    return;

  self->ready_time = ready_time;
  procwatch_source_set_timer (self->source, ready_time);
}

static void
link_probe (ProcwatchProbeScheduler *self,
            ProcwatchProbe          *probe)
{
  guint slot = probe->due & SLOT_MASK;

  probe->prev = NULL;
  probe->next = self->slots[slot];
  if (probe->next != NULL)
    probe->next->prev = probe;
  self->slots[slot] = probe;
  self->used[slot / 64] |= G_GUINT64_CONSTANT (1) << (slot % 64);
  probe->scheduled = TRUE;
  self->n_scheduled++;
}

static void
unlink_probe (ProcwatchProbeScheduler *self,
              ProcwatchProbe          *probe)
{
  guint slot = probe->due & SLOT_MASK;

  if (probe->prev != NULL)
    probe->prev->next = probe->next;
  else
    self->slots[slot] = probe->next;
  if (probe->next != NULL)
    probe->next->prev = probe->prev;
  if (self->slots[slot] == NULL)
    self->used[slot / 64] &= ~(G_GUINT64_CONSTANT (1) << (slot % 64));

  probe->next = probe->prev = NULL;
  probe->scheduled = FALSE;
  self->n_scheduled--;
}

/* Ticks from @start to the first slot in use, at or after it, going round
 * once; only called with probes scheduled. */
static guint
distance_to_used (ProcwatchProbeScheduler *self,
                  guint                    start)
{
  guint word = start / 64;
  guint64 bits = self->used[word] & (G_MAXUINT64 << (start % 64));
  guint i;

  for (i = 0; i <= N_WORDS; i++)
    {
      if (bits != 0)
        return (word * 64 + (guint) __builtin_ctzll (bits) - start) & SLOT_MASK;

      word = (word + 1) % N_WORDS;
      bits = self->used[word];
    }

  g_assert_not_reached ();
}

/* Sets the source's timer to the first slot in use, or to never. A slot
 * may hold only probes of a later lap: the wake-up then takes nothing and
 * moves on. */
void
procwatch_probe_scheduler_update_timer (ProcwatchProbeScheduler *self)
{
  gint64 now;
  guint32 next;

  if (self->n_scheduled == 0)
    {
      set_ready_time (self, -1);
      return;
    }

  now = now_us (self);
  next = self->cursor + distance_to_used (self, self->cursor & SLOT_MASK);
  set_ready_time (self, (now / TICK_US + (gint32) (next - tick_of (now))) * TICK_US);
}

static void
leave_young (ProcwatchProbeScheduler *self,
             ProcwatchProbe          *probe)
{
  if (probe->young)
    {
      probe->young = FALSE;
      self->n_young--;
    }
}

/* (Re)schedules @probe one step further on its schedule, or at its first
 * step with @restart_backoff. */
void
procwatch_probe_schedule (ProcwatchProbeScheduler *self,
                          ProcwatchProbe          *probe,
                          gboolean                 restart_backoff)
{
  gint64 max_interval = probe->max_interval_ms > 0 ? probe->max_interval_ms * G_TIME_SPAN_MILLISECOND
                                                   : self->max_interval;
  gint64 now = now_us (self);
  gint64 interval;
  guint32 now_tick = tick_of (now);
  guint32 due;
  guint32 granule;

  if (restart_backoff || probe->interval == 0)
    {
      leave_young (self, probe);
      probe->since = now_tick;
      probe->steps = 0;
      interval = self->min_interval;
      if (self->young_period > 0 && !probe->backoff_only)
        {
          probe->young = TRUE;
          self->n_young++;
        }
    }
  else
    {
      interval = MIN ((gint64) probe->interval * 2, max_interval);
    }

  if (probe->young)
    {
      /* Never less often than the plain backoff from the minimum. */
      gint64 plain = MIN (self->min_interval << probe->steps, max_interval);

      if ((guint32) (now_tick - probe->since) < self->young_period)
        interval = MIN (plain, MAX (self->young_interval,
                                    (gint64) self->n_young * G_USEC_PER_SEC /
                                    YOUNG_PROBES_PER_SECOND));
      else
        leave_young (self, probe);
      interval = MIN (interval, max_interval);
      if (plain < max_interval)
        probe->steps++;
    }

  probe->interval = (gint32) interval;

  if (probe->scheduled)
    unlink_probe (self, probe);

  /* An empty wheel restarts from now, not from when it was last used. */
  if (self->n_scheduled == 0 && !tick_le (now_tick, self->cursor))
    self->cursor = now_tick;

  /* Rounded up to a granule of a power of two ticks, at most 1/8 of the
   * interval, so that long intervals share their wake-ups; never before
   * the ticks already taken. */
  for (granule = 1; (gint64) granule * 2 * TICK_US * 8 <= interval; granule *= 2)
    ;
  due = (tick_of (now + interval) + granule - 1) & ~(granule - 1);
  if (!tick_le (self->cursor, due))
    due = self->cursor;
  probe->due = due;
  link_probe (self, probe);

  /* The timer only ever moves earlier here; a probe that leaves at most
   * causes one wake-up that takes nothing. */
  if (self->ready_time < 0 || !tick_le (tick_of (self->ready_time), due))
    procwatch_probe_scheduler_update_timer (self);
}

void
procwatch_probe_unschedule (ProcwatchProbeScheduler *self,
                            ProcwatchProbe          *probe)
{
  leave_young (self, probe);
  if (!probe->scheduled)
    return;

  unlink_probe (self, probe);
  if (self->n_scheduled == 0)
    set_ready_time (self, -1);
}

/* Takes the probes that are due out of the wheel, a batch at most, and adds
 * their data to @due. The timer is left for the caller to update once it
 * has probed (and maybe rescheduled) them. */
void
procwatch_probe_scheduler_take_due (ProcwatchProbeScheduler *self,
                                    GPtrArray               *due)
{
  guint32 now_tick = tick_of (now_us (self));
  guint taken = 0;

  /* The source cleared its timer before calling its owner. */
  self->ready_time = -1;

  /* After a long stall, one lap covers every slot. */
  if ((guint32) (now_tick - self->cursor) >= N_SLOTS && tick_le (self->cursor, now_tick))
    self->cursor = now_tick - N_SLOTS + 1;

  while (tick_le (self->cursor, now_tick) && self->n_scheduled > 0)
    {
      guint slot = self->cursor & SLOT_MASK;
      ProcwatchProbe *probe = self->slots[slot];

      while (probe != NULL && taken < PROBE_BATCH)
        {
          ProcwatchProbe *next = probe->next;

          if (tick_le (probe->due, now_tick))
            {
              unlink_probe (self, probe);
              g_ptr_array_add (due, probe->data);
              taken++;
            }
          probe = next;
        }

      /* The rest of this slot waits for the next dispatch. */
      if (probe != NULL)
        return;

      self->cursor++;
      if (taken == PROBE_BATCH)
        return;
    }

  if (tick_le (self->cursor, now_tick))
    self->cursor = now_tick + 1;
}
