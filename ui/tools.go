package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vastview/session"
)

// toolIcons draw each tool on its toolbar button (themed: they follow the
// text colour).
var toolIcons = map[session.Tool]string{
	session.Navigate:    `<path d="M12 2l3 4h-2v5h5V9l4 3-4 3v-2h-5v5h2l-3 4-3-4h2v-5H6v2l-4-3 4-3v2h5V6H9z"/>`,
	session.LineTool:    `<path d="M4 18.6L18.6 4 20 5.4 5.4 20z"/>`,
	session.RectTool:    `<path d="M3 5h18v14H3zm2 2v10h14V7z"/>`,
	session.EllipseTool: `<path d="M12 5c5 0 9 3.1 9 7s-4 7-9 7-9-3.1-9-7 4-7 9-7zm0 2c-3.9 0-7 2.2-7 5s3.1 5 7 5 7-2.2 7-5-3.1-5-7-5z"/>`,
	session.PolygonTool: `<path d="M12 2l10 7-4 12H6L2 9zm0 2.5L4.4 9.8 7.5 19h9l3.1-9.2z"/>`,
	session.PointTool:   `<circle cx="7" cy="8" r="2.5"/><circle cx="16" cy="7" r="2.5"/><circle cx="11" cy="16" r="2.5"/>`,
}

// toolIcon is a tool's icon as a themed resource.
func toolIcon(t session.Tool) fyne.Resource {
	svg := `<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="#000000">` +
		toolIcons[t] + `</svg>`
	return theme.NewThemedResource(fyne.NewStaticResource("tool-"+session.ToolNames[t]+".svg", []byte(svg)))
}

// toolButtons are the toolbar's buttons of the measuring tools, the one in
// use highlighted.
type toolButtons struct {
	v    *Viewer
	box  *fyne.Container
	btns []*widget.Button
	tool session.Tool
}

func newToolButtons(v *Viewer) *toolButtons {
	tb := &toolButtons{v: v, box: container.NewHBox(), tool: -1}
	for t := range session.ToolNames {
		tool := session.Tool(t)
		b := widget.NewButtonWithIcon("", toolIcon(tool), func() {
			v.s.SetTool(tool)
			v.focusView()
		})
		tb.btns = append(tb.btns, b)
		tb.box.Add(b)
	}
	tb.sync()
	return tb
}

// sync highlights the tool in use.
func (tb *toolButtons) sync() {
	t := tb.v.s.CurrentTool()
	if t == tb.tool {
		return
	}
	tb.tool = t
	for i, b := range tb.btns {
		if session.Tool(i) == t {
			b.Importance = widget.HighImportance
		} else {
			b.Importance = widget.LowImportance
		}
		b.Refresh()
	}
}

// rects are where the buttons are in the window, in pixels, by tool name
// (for a script driving the window).
func (tb *toolButtons) rects() map[string][]int {
	out := map[string][]int{}
	for i, b := range tb.btns {
		out[session.ToolNames[i]] = tb.v.rect(b)
	}
	return out
}
