package ui

import (
	"testing"

	"fyne.io/fyne/v2"

	"vastview/loader"
	"vastview/render"
)

func TestNavigateStepsAndClamps(t *testing.T) {
	stack := loader.NewMeta("t", "ZYX", []int{500, 40, 30}, loader.Uint8, []int{1, 40, 30}, nil, nil)
	hyper := loader.NewMeta("t", "TZYX", []int{5, 30, 4, 4}, loader.Uint8, []int{1, 1, 4, 4}, nil, nil)
	movie := loader.NewMeta("t", "TYX", []int{1000, 4, 4}, loader.Uint8, []int{1, 4, 4}, nil, nil)
	xy := func(t, z int) render.View { return render.View{T: t, Z: z} }
	xz := func(y int) render.View { return render.View{Orientation: render.XZ, Y: y} }
	for _, c := range []struct {
		meta *loader.Meta
		from render.View
		key  fyne.KeyName
		mods modifiers
		want render.View
		dir  int
	}{
		{stack, xy(0, 5), fyne.KeyPeriod, modifiers{}, xy(0, 6), 1},
		{stack, xy(0, 5), fyne.KeyComma, modifiers{}, xy(0, 4), -1},
		{stack, xy(0, 5), fyne.KeyRight, modifiers{shift: true}, xy(0, 15), 1},
		{stack, xy(0, 5), fyne.KeyRight, modifiers{ctrl: true}, xy(0, 105), 1},
		{stack, xy(0, 5), fyne.KeyLeft, modifiers{shift: true}, xy(0, 0), -1},
		{stack, xy(0, 450), fyne.KeyRight, modifiers{ctrl: true}, xy(0, 499), 1},
		{stack, xy(0, 5), fyne.KeyEnd, modifiers{}, xy(0, 499), -1},
		{stack, xy(0, 5), fyne.KeyHome, modifiers{}, xy(0, 0), 1},
		{stack, xz(3), fyne.KeyPeriod, modifiers{}, xz(4), 1},
		{stack, xz(3), fyne.KeyEnd, modifiers{}, xz(39), -1},
		{hyper, xy(1, 3), fyne.KeyRightBracket, modifiers{}, xy(2, 3), 1},
		{hyper, xy(0, 3), fyne.KeyLeftBracket, modifiers{}, xy(0, 3), -1},
		{hyper, xy(1, 3), fyne.KeyPeriod, modifiers{}, xy(1, 4), 1},
		{movie, xy(10, 0), fyne.KeyPeriod, modifiers{}, xy(11, 0), 1},
		{movie, xy(10, 0), fyne.KeyEnd, modifiers{}, xy(999, 0), -1},
	} {
		got, dir, ok := navigate(c.meta, c.from, c.key, c.mods)
		if !ok || got != c.want || dir != c.dir {
			t.Errorf("%s %+v %s %+v: got %+v dir %d (%v), want %+v dir %d", c.meta.Axes, c.from, c.key, c.mods, got, dir, ok, c.want, c.dir)
		}
	}
	if _, _, ok := navigate(stack, xy(0, 0), fyne.KeyA, modifiers{}); ok {
		t.Error("A is not a navigation key")
	}
}
