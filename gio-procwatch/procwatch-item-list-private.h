/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The order of a list model whose items leave from anywhere and are only
 * ever added at the end: removing an item and finding its position cost
 * O(log n) in the worst case, appending O(1) amortized plus O(log n).
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _ProcwatchItemList ProcwatchItemList;

/* Each item holds a guint at @slot_offset, which the list keeps up to date
 * with where it holds the item: hand it back to remove the item. */
ProcwatchItemList *procwatch_item_list_new       (gsize              slot_offset);
void               procwatch_item_list_free      (ProcwatchItemList *self);
/* Adds @item at the end and returns its position. */
guint              procwatch_item_list_append    (ProcwatchItemList *self,
                                                  gpointer           item);
/* Removes the item whose slot is @slot; returns where it was. */
guint              procwatch_item_list_remove    (ProcwatchItemList *self,
                                                  guint              slot);
guint              procwatch_item_list_get_length (ProcwatchItemList *self);
/* The item at @position, or NULL past the end. */
gpointer           procwatch_item_list_get       (ProcwatchItemList *self,
                                                  guint              position);
void               procwatch_item_list_clear     (ProcwatchItemList *self);

G_END_DECLS
