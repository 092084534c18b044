package ui

import (
	"time"

	"fyne.io/fyne/v2"
)

// playRates are the playback rates offered, in planes per second.
var playRates = []string{"5 fps", "10 fps", "30 fps", "60 fps", "120 fps"}

// defaultPlayRate is the rate before one is chosen.
const defaultPlayRate = 30

// player steps through the planes at the chosen rate while playing. Steps are
// scheduled one at a time, so a slow frame drops steps instead of
// queueing them.
type player struct {
	stop chan struct{}
}

func (v *Viewer) togglePlay() {
	if v.play != nil {
		close(v.play.stop)
		v.play = nil
		return
	}
	p := &player{stop: make(chan struct{})}
	v.play = p
	rate := v.playRate
	go func() {
		t := time.NewTicker(time.Second / time.Duration(max(1, rate)))
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				uiDoAndWait(func() {
					if v.play != p || v.s == nil {
						return
					}
					nv, dir, _ := navigate(v.s.pyr.Meta(), v.view, fyne.KeyPeriod, modifiers{})
					if nv == v.view { // the end: start again
						nv, dir, _ = navigate(v.s.pyr.Meta(), v.view, fyne.KeyHome, modifiers{})
					}
					v.view = nv
					v.moved(time.Now(), dir)
				})
			}
		}
	}()
}
