package session

import (
	"os"
	"strings"
	"testing"
)

// readmeKeys returns the key column of README's table of keys, the
// backquotes taken off.
func readmeKeys(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n| keys | |\n|---|---|\n")
	if !ok {
		t.Fatal("README.md has no table of keys")
	}
	var keys []string
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		cell, _, _ := strings.Cut(line[2:], " | ")
		keys = append(keys, strings.Join(strings.Fields(strings.ReplaceAll(cell, "`", "")), " "))
	}
	return keys
}

func TestReadmeListsTheKeysOfTheKeyMap(t *testing.T) {
	var want []string
	for _, s := range Shortcuts() {
		want = append(want, s.Keys)
	}
	got := readmeKeys(t)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("README's table of keys lists\n  %q\nthe key map (F1) lists\n  %q", got, want)
	}
}

func TestEveryKeyIsBoundOnce(t *testing.T) {
	seen := map[Key]Action{}
	menus := map[string]bool{}
	for _, b := range keyMap {
		if b.Key.Name == "" {
			continue
		}
		if a, ok := seen[b.Key]; ok {
			t.Errorf("%v is bound to %q and %q", b.Key, a, b.Action)
		}
		seen[b.Key] = b.Action
		if b.Menu != "" && menus[b.Menu] {
			t.Errorf("two keys for the menu item %q", b.Menu)
		}
		menus[b.Menu] = true
	}
}

func TestModifiersReachTheKeyAlone(t *testing.T) {
	for _, c := range []struct {
		k    Key
		want Action
	}{
		{Key{Name: KeyLeft, Mods: Mods{Shift: true}}, ActPrevStep},
		{Key{Name: KeyLeft, Mods: Mods{Ctrl: true}}, ActPrevStep},
		{Key{Name: KeyLeft, Mods: Mods{Alt: true}}, ActPrevFile},
		{Key{Name: KeyComma, Mods: Mods{Alt: true}}, ActNone},
		{Key{Name: KeySpace, Mods: Mods{Ctrl: true}}, ActPlay},
		{Key{Name: "3", Mods: Mods{Ctrl: true}}, ActChannel},
		{Key{Name: "3"}, ActNone},
		{runeKey('3'), ActYZ},
		{runeKey('h'), ActPanels},
		{runeKey('='), ActZoomIn},
	} {
		b, _ := binding(c.k)
		if b.Action != c.want {
			t.Errorf("%v does %q, want %q", c.k, b.Action, c.want)
		}
	}
}
