package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// scrollView shows a list of lines with a top offset; used by the text
// screens (Phase 2, the op chain, errors).
type scrollView struct {
	offset int
	height int
}

func (s *scrollView) navigate(msg tea.KeyPressMsg, k keyMap, n int) bool {
	switch {
	case key.Matches(msg, k.Up):
		s.offset--
	case key.Matches(msg, k.Down):
		s.offset++
	case key.Matches(msg, k.PageUp):
		s.offset -= s.height
	case key.Matches(msg, k.PageDown):
		s.offset += s.height
	case key.Matches(msg, k.HalfUp):
		s.offset -= max(1, s.height/2)
	case key.Matches(msg, k.HalfDown):
		s.offset += max(1, s.height/2)
	case key.Matches(msg, k.Top):
		s.offset = 0
	case key.Matches(msg, k.Bottom):
		s.offset = n
	default:
		return false
	}
	s.clamp(n)
	return true
}

func (s *scrollView) clamp(n int) {
	if max := n - s.height; s.offset > max {
		s.offset = max
	}
	if s.offset < 0 {
		s.offset = 0
	}
}

// window returns the visible part of lines.
func (s *scrollView) window(lines []string) []string {
	s.clamp(len(lines))
	end := s.offset + s.height
	if end > len(lines) {
		end = len(lines)
	}
	return lines[s.offset:end]
}
