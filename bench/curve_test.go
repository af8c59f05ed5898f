package bench

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestSpread(t *testing.T) {
	points := []curvePoint{{AddPer100kS: 2}, {AddPer100kS: 2.5}, {AddPer100kS: 2.2}}
	if got := spread(points, func(p curvePoint) float64 { return p.AddPer100kS }); got != 0.25 {
		t.Errorf("spread of 2, 2.5 and 2.2 is %v, want 0.25", got)
	}
	if got := spread(points[:1], func(p curvePoint) float64 { return p.AddPer100kS }); got != 0 {
		t.Errorf("spread of one size is %v, want 0", got)
	}
}

// TestDrawCurve draws three sizes and reads the file back as a PNG of
// the size drawCurve asks for.
func TestDrawCurve(t *testing.T) {
	c := curveJSON{Store: "sqlite", PNG: filepath.Join(t.TempDir(), "curve.png"), Points: []curvePoint{
		{Payments: 10_000, AddPer100kS: 1.5, AddFloorPer100kS: 1, SubmitPer100kS: 3, SubmitFloorPer100kS: 2},
		{Payments: 100_000, AddPer100kS: 1.4, AddFloorPer100kS: 0.9, SubmitPer100kS: 2.8, SubmitFloorPer100kS: 1.9},
		{Payments: 1_000_000, AddPer100kS: 1.45, AddFloorPer100kS: 0.95, SubmitPer100kS: 2.9, SubmitFloorPer100kS: 2},
	}}
	if err := drawCurve(c); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(c.PNG)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the curve is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 300 {
		t.Errorf("the curve is %dx%d pixels", b.Dx(), b.Dy())
	}
}

func TestGrouped(t *testing.T) {
	for n, want := range map[int]string{200: "200", 10_000: "10,000", 1_000_000: "1,000,000"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}
