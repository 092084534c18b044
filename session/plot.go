package session

import (
	"image"
	"image/color"
	imgdraw "image/draw"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// plotCurve is one curve of a plot: a channel's profile, or a histogram's
// bars.
type plotCurve struct {
	name   string
	x, y   []float64
	colour color.NRGBA
	bars   bool
}

// drawPlot draws curves on a w×h picture with axes, ticks and labels
// (gonum.org/v1/plot), a legend when there are several.
func drawPlot(w, h int, title, xLabel, yLabel string, curves []plotCurve) *image.RGBA {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Add(plotter.NewGrid())
	for _, c := range curves {
		xy := make(plotter.XYs, len(c.x))
		for i := range xy {
			xy[i].X, xy[i].Y = c.x[i], c.y[i]
		}
		if c.bars {
			hist := &plotter.Histogram{Bins: make([]plotter.HistogramBin, len(c.x)), FillColor: c.colour,
				LineStyle: draw.LineStyle{Color: c.colour, Width: vg.Points(0.5)}}
			step := 1.0
			if len(c.x) > 1 {
				step = c.x[1] - c.x[0]
			}
			for i := range c.x {
				hist.Bins[i] = plotter.HistogramBin{Min: c.x[i] - step/2, Max: c.x[i] + step/2, Weight: c.y[i]}
			}
			p.Add(hist)
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			continue
		}
		l.Color, l.Width = c.colour, vg.Points(1.2)
		p.Add(l)
		if len(curves) > 1 && c.name != "" {
			p.Legend.Add(c.name, l)
		}
	}
	p.Legend.Top = true
	dc := vgimg.NewWith(vgimg.UseImage(image.NewRGBA(image.Rect(0, 0, w, h))))
	p.Draw(draw.New(dc))
	// The canvas draws on a copy of the picture it is given.
	if img, ok := dc.Image().(*image.RGBA); ok {
		return img
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	imgdraw.Draw(img, img.Rect, dc.Image(), image.Point{}, imgdraw.Src)
	return img
}
