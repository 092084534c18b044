package ui

import (
	"testing"

	"fyne.io/fyne/v2"

	"vastview/loader"
)

func TestNavigateStepsAndClamps(t *testing.T) {
	stack := loader.NewMeta("t", "ZYX", []int{500, 4, 4}, loader.Uint8, []int{1, 4, 4}, nil, nil)
	hyper := loader.NewMeta("t", "TZYX", []int{5, 30, 4, 4}, loader.Uint8, []int{1, 1, 4, 4}, nil, nil)
	movie := loader.NewMeta("t", "TYX", []int{1000, 4, 4}, loader.Uint8, []int{1, 4, 4}, nil, nil)
	for _, c := range []struct {
		meta *loader.Meta
		from position
		key  fyne.KeyName
		mods modifiers
		want position
	}{
		{stack, position{z: 5}, fyne.KeyPeriod, modifiers{}, position{z: 6}},
		{stack, position{z: 5}, fyne.KeyComma, modifiers{}, position{z: 4}},
		{stack, position{z: 5}, fyne.KeyRight, modifiers{shift: true}, position{z: 15}},
		{stack, position{z: 5}, fyne.KeyRight, modifiers{ctrl: true}, position{z: 105}},
		{stack, position{z: 5}, fyne.KeyLeft, modifiers{shift: true}, position{z: 0}},
		{stack, position{z: 450}, fyne.KeyRight, modifiers{ctrl: true}, position{z: 499}},
		{stack, position{z: 5}, fyne.KeyEnd, modifiers{}, position{z: 499}},
		{stack, position{z: 5}, fyne.KeyHome, modifiers{}, position{z: 0}},
		{hyper, position{t: 1, z: 3}, fyne.KeyRightBracket, modifiers{}, position{t: 2, z: 3}},
		{hyper, position{t: 0, z: 3}, fyne.KeyLeftBracket, modifiers{}, position{t: 0, z: 3}},
		{hyper, position{t: 1, z: 3}, fyne.KeyPeriod, modifiers{}, position{t: 1, z: 4}},
		{movie, position{t: 10}, fyne.KeyPeriod, modifiers{}, position{t: 11}},
		{movie, position{t: 10}, fyne.KeyEnd, modifiers{}, position{t: 999}},
	} {
		got, ok := navigate(c.meta, c.from, c.key, c.mods)
		if !ok || got != c.want {
			t.Errorf("%s %v %s %+v: got %+v (%v), want %+v", c.meta.Axes, c.from, c.key, c.mods, got, ok, c.want)
		}
	}
	if _, ok := navigate(stack, position{}, fyne.KeyA, modifiers{}); ok {
		t.Error("A is not a navigation key")
	}
}
