package session

// roiResult is what was measured of one ROI.
type roiResult struct{}

// measureLocked has the ROIs' measurements brought up to date.
func (s *Session) measureLocked() {}

// Measure measures the ROIs at full resolution now (Ctrl+M).
func (s *Session) Measure() {}
