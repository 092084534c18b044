package session

import "vastview/loader"

// WindowPreset is a CT display window: its width and level (centre) in
// Hounsfield units.
type WindowPreset struct {
	Name         string
	Width, Level float64
}

// CTPresets are the radiology windows of CT, width / level in HU, as
// Radiopaedia's "Windowing (CT)" gives them: Alt+1 … Alt+8 and the
// contrast panel's presets.
var CTPresets = []WindowPreset{
	{"brain", 80, 40},
	{"subdural", 200, 75},
	{"stroke", 40, 40},
	{"bone", 1800, 400},
	{"lung", 1500, -600},
	{"mediastinum", 350, 50},
	{"abdomen", 400, 50},
	{"liver", 150, 30},
}

// PresetsApply reports whether the CT window presets are offered for m:
// a volume placed in a patient (an anatomical orientation) that is CT or
// does not say what it is (a NIfTI file); other modalities (MR, PET) keep
// auto-contrast.
func PresetsApply(m *loader.Meta) bool {
	return m != nil && (m.ValueUnit == "HU" || m.Modality == "CT" || m.Anatomy != nil && m.Modality == "" && !m.RGB)
}

// ApplyPreset sets the window of CTPresets[i], in the file's units (the
// stored values through its rescale slope and intercept), for data the
// presets apply to; it reports whether it did.
func (s *Session) ApplyPreset(i int) bool {
	if i < 0 || i >= len(CTPresets) {
		return false
	}
	m := s.Meta()
	if !PresetsApply(m) {
		return false
	}
	p := CTPresets[i]
	lo, hi := m.ValueScale.Stored(p.Level-p.Width/2), m.ValueScale.Stored(p.Level+p.Width/2)
	s.SetWindow(min(lo, hi), max(lo, hi))
	return true
}
