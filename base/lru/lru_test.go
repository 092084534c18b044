package lru

import (
	"slices"
	"testing"
)

func keys(c *Cache[string, int]) []string {
	var ks []string
	for e := c.root.next; e != &c.root; e = e.next {
		ks = append(ks, e.key)
	}
	return ks
}

func TestPutEvictsLeastRecentlyUsedWithinBudget(t *testing.T) {
	c := New[string, int](10)
	c.Put("a", 1, 4)
	c.Put("b", 2, 4)
	if _, ok := c.Get("a"); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	ev := c.Put("c", 3, 4) // 12 > 10: b goes
	if len(ev) != 1 || ev[0].Key != "b" || ev[0].Val != 2 {
		t.Fatalf("evicted %v, want b", ev)
	}
	if got := keys(c); !slices.Equal(got, []string{"c", "a"}) {
		t.Errorf("order %v", got)
	}
	if c.Used() != 8 || c.Len() != 2 {
		t.Errorf("used %d len %d", c.Used(), c.Len())
	}
}

func TestPutKeepsAnEntryLargerThanTheBudget(t *testing.T) {
	c := New[string, int](10)
	c.Put("a", 1, 4)
	ev := c.Put("big", 2, 40)
	if len(ev) != 1 || ev[0].Key != "a" {
		t.Fatalf("evicted %v", ev)
	}
	if _, ok := c.Peek("big"); !ok || c.Used() != 40 {
		t.Errorf("the large entry was not kept (used %d)", c.Used())
	}
}

func TestPutReplacesAndReportsTheOldValue(t *testing.T) {
	c := New[string, int](0)
	c.Put("a", 1, 4)
	ev := c.Put("a", 5, 6)
	if len(ev) != 1 || ev[0].Val != 1 {
		t.Fatalf("evicted %v, want the old value", ev)
	}
	if v, _ := c.Get("a"); v != 5 || c.Used() != 6 || c.Len() != 1 {
		t.Errorf("value %d used %d len %d", v, c.Used(), c.Len())
	}
}

func TestPeekDoesNotRenew(t *testing.T) {
	c := New[string, int](8)
	c.Put("a", 1, 4)
	c.Put("b", 2, 4)
	c.Peek("a")
	c.Put("c", 3, 4)
	if _, ok := c.Peek("a"); ok {
		t.Error("a was renewed by Peek")
	}
}

func TestRemoveOldestAndRemoveFunc(t *testing.T) {
	c := New[string, int](0)
	for i, k := range []string{"a", "b", "c", "d"} {
		c.Put(k, i, 1)
	}
	if k, v, ok := c.RemoveOldest(); !ok || k != "a" || v != 0 {
		t.Errorf("oldest %q %d %v", k, v, ok)
	}
	if n := c.RemoveFunc(func(_ string, v int) bool { return v%2 == 1 }); n != 2 {
		t.Errorf("removed %d", n)
	}
	if got := keys(c); !slices.Equal(got, []string{"c"}) || c.Used() != 1 {
		t.Errorf("left %v used %d", got, c.Used())
	}
	c.RemoveFunc(func(string, int) bool { return true })
	if _, _, ok := c.Oldest(); ok || c.Len() != 0 || c.Used() != 0 {
		t.Error("not empty after removing every entry")
	}
	if c.Remove("c") {
		t.Error("removed from an empty cache")
	}
}
