/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include "procwatch-waits-private.h"

typedef struct
{
  ProcwatchWaits *waits;

  /* Keeps @waits alive while the task may still be in it. */
  gpointer holder;
  GDestroyNotify release_holder;

  GSource *cancelled_source;

  /* For a wait settled later: what it returns, or, if NULL, why it fails. */
  GObject *result;
  char *message;
} WaitData;

static void
wait_data_free (WaitData *data)
{
  g_clear_pointer (&data->cancelled_source, g_source_unref);
  g_clear_object (&data->result);
  g_free (data->message);
  data->release_holder (data->holder);
  g_free (data);
}

/* Takes the oldest wait out, and out of the cancellable's reach (its
 * source holds the task); the caller owns the task. */
GTask *
procwatch_waits_pop (ProcwatchWaits *waits)
{
  GTask *task;
  WaitData *data;

  if (waits->tasks == NULL)
    return NULL;

  task = waits->tasks->data;
  waits->tasks = g_list_delete_link (waits->tasks, waits->tasks);

  data = g_task_get_task_data (task);
  if (data->cancelled_source != NULL)
    g_source_destroy (data->cancelled_source);

  return task;
}

static gboolean
on_wait_cancelled (GCancellable *cancellable,
                   gpointer      user_data)
{
  GTask *task = user_data;
  WaitData *data = g_task_get_task_data (task);

  GList *link = g_list_find (data->waits->tasks, task);

  if (link != NULL)
    {
      data->waits->tasks = g_list_delete_link (data->waits->tasks, link);
      g_task_return_error_if_cancelled (task);
      g_object_unref (task);
    }

  return G_SOURCE_REMOVE;
}

/* Queues @task; @holder (a reference, given up with @release_holder when
 * the task is done) keeps @waits alive meanwhile. */
void
procwatch_waits_add (ProcwatchWaits *waits,
                     GTask          *task,
                     gpointer        holder,
                     GDestroyNotify  release_holder)
{
  GCancellable *cancellable = g_task_get_cancellable (task);
  WaitData *data = g_new0 (WaitData, 1);

  data->waits = waits;
  data->holder = holder;
  data->release_holder = release_holder;
  g_task_set_task_data (task, data, (GDestroyNotify) wait_data_free);

  if (cancellable != NULL)
    {
      data->cancelled_source = g_cancellable_source_new (cancellable);
      g_task_attach_source (task, data->cancelled_source, G_SOURCE_FUNC (on_wait_cancelled));
    }

  waits->tasks = g_list_append (waits->tasks, g_object_ref (task));
}

static gboolean
settle_wait (gpointer user_data)
{
  GTask *task = user_data;
  WaitData *data = g_task_get_task_data (task);

  if (data->result != NULL)
    g_task_return_pointer (task, g_object_ref (data->result), g_object_unref);
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", data->message);

  return G_SOURCE_REMOVE;
}

/* Watching stops inside a call the application made (unwatch, close,
 * dispose), possibly from a dispatch in the waits' context, where
 * g_task_return_*() would run their callbacks at once: they are settled
 * from an idle instead, once that call has returned, with @result if what
 * they wait for has been seen, else with G_IO_ERROR_CANCELLED and
 * @message. */
void
procwatch_waits_settle_later (ProcwatchWaits *waits,
                              GObject        *result,
                              const char     *message)
{
  GTask *task;

  while ((task = procwatch_waits_pop (waits)) != NULL)
    {
      WaitData *data = g_task_get_task_data (task);
      g_autoptr(GSource) idle = g_idle_source_new ();

      data->result = result != NULL ? g_object_ref (result) : NULL;
      data->message = g_strdup (message);
      g_source_set_static_name (idle, "[gio-procwatch] settle wait");
      g_task_attach_source (task, idle, settle_wait);
      g_object_unref (task);
    }
}
