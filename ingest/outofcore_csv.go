package ingest

import "context"

// settleRows applies what the in-memory path applies to the merged rows
// (the latest run's rows where a rank's run folders share steps) and
// returns the rows dropped per rank; out of core the sink's sort applies
// it.
func (m *csvMerger) settleRows(ctx context.Context) (map[int32]int, error) {
	if m.sink == nil {
		if len(m.runOrder) == 0 {
			return nil, nil
		}
		return dropSupersededRuns(&m.d.Rows, m.folderOrder), nil
	}
	m.sink.runs = len(m.runOrder) > 0
	built, err := m.sink.build(ctx, m.d)
	return built.dropped, err
}
