package levels

import "testing"

func TestParseBudget(t *testing.T) {
	for s, want := range map[string]int64{
		"1073741824": 1 << 30, "1GiB": 1 << 30, "1 gib": 1 << 30, "512MiB": 512 << 20, "2G": 2 << 30,
		"1.5GB": 1.5e9, "64k": 64 << 10, "100B": 100, " 3 MB ": 3e6,
	} {
		if got, err := ParseBudget(s, false); err != nil || got != want {
			t.Errorf("ParseBudget(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "lots", "GiB", "-1GiB", "NaN", "Inf", "1e30TiB", "0", "0MiB", "1 GiB GiB"} {
		if got, err := ParseBudget(s, false); err == nil {
			t.Errorf("ParseBudget(%q) = %d, no error", s, got)
		}
	}
	if got, err := ParseBudget("0", true); err != nil || got != 0 {
		t.Errorf("ParseBudget(0, zero allowed) = %d, %v", got, err)
	}
}

func TestFormatBudgetReadsBack(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 4 << 30: "4GiB", 1536 << 20: "1536MiB", 3 << 10: "3KiB", 1000: "1000"} {
		s := FormatBudget(n)
		if s != want {
			t.Errorf("FormatBudget(%d) = %q, want %q", n, s, want)
		}
		if back, err := ParseBudget(s, true); err != nil || back != n {
			t.Errorf("ParseBudget(%q) = %d, %v; want %d", s, back, err, n)
		}
	}
}

func TestPartDividesTheBudget(t *testing.T) {
	const b = 1 << 30
	for _, c := range []struct {
		budget int64
		n      int
		want   int64
	}{
		{b, PartWhole, b}, {b, PartExport, b / 2}, {b, PartLayer, b / 2}, {b, PartAhead, b / 8},
		{b, 3, b / 3}, {b, 0, b}, {4 << 20, 16, MinPart},
		{0, PartAhead, DefaultCacheBytes() / 8},
	} {
		if got := Part(c.budget, c.n); got != c.want {
			t.Errorf("Part(%d, %d) = %d, want %d", c.budget, c.n, got, c.want)
		}
	}
}
