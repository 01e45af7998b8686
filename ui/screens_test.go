package ui

// The typed pane of a screen, for tests that look inside one (the root
// itself reaches its panes only through the pane contract); nil when the
// screen has no pane of that type.
func paneOn[P pane](m *Model, s screen) P { p, _ := m.panes[s].(P); return p }

func (m *Model) loading() *loadingPane { return paneOn[*loadingPane](m, screenLoading) }
func (m *Model) p1() *phase1Pane       { return paneOn[*phase1Pane](m, screenPhase1) }
func (m *Model) series() *seriesPane   { return paneOn[*seriesPane](m, screenSeries) }
func (m *Model) p2() *phase2Pane       { return paneOn[*phase2Pane](m, screenPhase2) }
func (m *Model) p3() *phase3Pane       { return paneOn[*phase3Pane](m, screenPhase3) }
func (m *Model) drill() *drillPane     { return paneOn[*drillPane](m, screenDrill) }
func (m *Model) chooser() *chooserPane { return paneOn[*chooserPane](m, screenChooser) }
