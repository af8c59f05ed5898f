package bench

import (
	"fmt"
	"image/color"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// drawCurve writes the curve as a PNG: seconds per 100,000 payments
// against the batch's size on a log scale, one line for each of the
// service's add and submit and one, dashed, for each floor. A flat line is
// a cost that grows with the batch and no faster.
func drawCurve(c curveJSON) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Disburse on %s: cost per 100,000 payments by batch size", c.Store)
	p.X.Label.Text = "payments in the batch"
	p.Y.Label.Text = "seconds per 100,000 payments"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks(c.Points)
	p.Y.Min = 0
	p.Legend.Top = true
	lines := []struct {
		name   string
		cost   func(curvePoint) float64
		colour color.Color
		dashed bool
	}{
		{"add (service)", func(p curvePoint) float64 { return p.AddPer100kS }, color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, false},
		{"add (floor)", func(p curvePoint) float64 { return p.AddFloorPer100kS }, color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, true},
		{"submit (service)", func(p curvePoint) float64 { return p.SubmitPer100kS }, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, false},
		{"submit (floor)", func(p curvePoint) float64 { return p.SubmitFloorPer100kS }, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, true},
	}
	for _, l := range lines {
		xy := make(plotter.XYs, len(c.Points))
		for i, pt := range c.Points {
			xy[i] = plotter.XY{X: float64(pt.Payments), Y: l.cost(pt)}
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		line.Color, points.Color = l.colour, l.colour
		line.Width = vg.Points(1.5)
		points.Shape = draw.CircleGlyph{}
		if l.dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			points.Shape = draw.BoxGlyph{}
		}
		p.Add(line, points)
		p.Legend.Add(l.name, line, points)
	}
	p.Y.Max *= 1.3 // room for the legend above the lines
	return p.Save(18*vg.Centimeter, 11*vg.Centimeter, c.PNG)
}

// sizeTicks marks the measured sizes, written as people write counts.
func sizeTicks(points []curvePoint) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(points))
	for i, p := range points {
		ticks[i] = plot.Tick{Value: float64(p.Payments), Label: grouped(p.Payments)}
	}
	return ticks
}

// grouped writes n with a comma between each group of three digits.
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
