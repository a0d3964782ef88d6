/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <string.h>

#include "procwatch-item-list-private.h"

/* Items sit in slots in the order they were added; a removed item leaves
 * its slot empty, and a Fenwick tree over the slots counts the items in
 * them, so that the position of a slot is a prefix sum (O(log n), over one
 * array: few cache lines, where a balanced tree such as GSequence walks
 * ~2 ln n nodes scattered over the heap, three times per removal). When the
 * slots run out they are compacted, or doubled, in O(n), with at least as
 * many appends before the next time: O(1) amortized per append. Removal
 * never moves anything. */

#define MIN_CAPACITY 16

/* The item of each slot, NULL once removed. Only the item: its slot number
 * is in the item (at slot_offset), so that a slot costs 12 bytes with the
 * tree's count, not 20; a list of 100,000 items has 131,072 slots. */
typedef gpointer Entry;

struct _ProcwatchItemList
{
  Entry *entries;
  gsize slot_offset;
  guint *tree;        /* 1-based: tree[i] counts the items of slots (i - lowbit (i), i] */
  guint capacity;     /* a power of two, entries and tree alike */
  guint n_slots;      /* slots taken so far, live or emptied */
  guint n_items;
};

static inline guint *
item_slot (ProcwatchItemList *self,
           gpointer           item)
{
  return G_STRUCT_MEMBER_P (item, self->slot_offset);
}

static inline guint
lowbit (guint i)
{
  return i & -i;
}

static void
tree_add (ProcwatchItemList *self,
          guint              slot,
          int                delta)
{
  guint i;

  for (i = slot + 1; i <= self->capacity; i += lowbit (i))
    self->tree[i] += delta;
}

/* How many items are in the slots before @slot. */
static guint
tree_count_before (ProcwatchItemList *self,
                   guint              slot)
{
  guint count = 0;
  guint i;

  for (i = slot; i > 0; i -= lowbit (i))
    count += self->tree[i];

  return count;
}

/* Packs the items into the first slots, in order, into an array of a size
 * that leaves as many free slots as there are items. */
static void
rebuild (ProcwatchItemList *self)
{
  guint capacity = MIN_CAPACITY;
  guint read, write = 0;
  guint i;

  while (capacity < 2 * self->n_items)
    capacity *= 2;

  for (read = 0; read < self->n_slots; read++)
    {
      if (self->entries[read] == NULL)
        continue;

      self->entries[write] = self->entries[read];
      *item_slot (self, self->entries[write]) = write;
      write++;
    }

  if (capacity != self->capacity)
    {
      self->entries = g_renew (Entry, self->entries, capacity);
      g_free (self->tree);
      self->tree = g_new (guint, capacity + 1);
      self->capacity = capacity;
    }

  self->n_slots = write;
  memset (self->entries + write, 0, (capacity - write) * sizeof (Entry));

  /* Linear construction: each node passes its count on to its parent. */
  memset (self->tree, 0, (capacity + 1) * sizeof (guint));
  for (i = 1; i <= capacity; i++)
    {
      guint parent = i + lowbit (i);

      self->tree[i] += i <= write ? 1 : 0;
      if (parent <= capacity)
        self->tree[parent] += self->tree[i];
    }
}

ProcwatchItemList *
procwatch_item_list_new (gsize slot_offset)
{
  ProcwatchItemList *self = g_new0 (ProcwatchItemList, 1);

  self->slot_offset = slot_offset;
  rebuild (self);
  return self;
}

void
procwatch_item_list_free (ProcwatchItemList *self)
{
  g_free (self->entries);
  g_free (self->tree);
  g_free (self);
}

guint
procwatch_item_list_append (ProcwatchItemList *self,
                            gpointer           item)
{
  guint slot;

  g_assert (item != NULL);

  if (self->n_slots == self->capacity)
    rebuild (self);

  slot = self->n_slots++;
  *item_slot (self, item) = slot;
  self->entries[slot] = item;
  tree_add (self, slot, 1);

  return self->n_items++;
}

guint
procwatch_item_list_remove (ProcwatchItemList *self,
                            guint              slot)
{
  g_assert (slot < self->n_slots && self->entries[slot] != NULL);

  self->entries[slot] = NULL;
  tree_add (self, slot, -1);
  self->n_items--;

  return tree_count_before (self, slot);
}

guint
procwatch_item_list_get_length (ProcwatchItemList *self)
{
  return self->n_items;
}

gpointer
procwatch_item_list_get (ProcwatchItemList *self,
                         guint              position)
{
  guint index = 0;
  guint step;

  if (position >= self->n_items)
    return NULL;

  /* Down the tree: the last slot with at most @position items before it
   * and up to it, counted from 1, is the slot before the one wanted. */
  for (step = self->capacity; step > 0; step /= 2)
    {
      if (index + step <= self->capacity && self->tree[index + step] <= position)
        {
          index += step;
          position -= self->tree[index];
        }
    }

  return self->entries[index];
}

void
procwatch_item_list_clear (ProcwatchItemList *self)
{
  self->n_items = 0;
  self->n_slots = 0;
  rebuild (self);
}
