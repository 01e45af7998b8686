-- A Gen B trend.db built from ops ["norm"]: trend_data has no min/max/mean columns.
-- Metric ids shifted (actv present), so names must be read from monitoring_metrics.
-- Rebuild: sqlite3 norm_only.trend.db < norm_only.trend.sql
CREATE TABLE monitoring_targets (target_id INTEGER PRIMARY KEY AUTOINCREMENT, target_name TEXT NOT NULL, vpp_stage INTEGER NOT NULL, micro_step INTEGER NOT NULL DEFAULT 0, UNIQUE(target_name, vpp_stage, micro_step));
CREATE TABLE monitoring_metrics (metric_id INTEGER PRIMARY KEY AUTOINCREMENT, metric_name TEXT UNIQUE NOT NULL);
CREATE TABLE global_stats (min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, max_rank INTEGER DEFAULT 0, actv TEXT DEFAULT NULL, grad_unreduced TEXT DEFAULT NULL);
CREATE TABLE trend_data (rank INTEGER NOT NULL, step INTEGER NOT NULL, target_id INTEGER NOT NULL, metric_id INTEGER NOT NULL, norm REAL DEFAULT NULL, PRIMARY KEY (rank, step, target_id, metric_id)) WITHOUT ROWID;
INSERT INTO global_stats VALUES(0,1,0,'norm','norm');
INSERT INTO monitoring_metrics VALUES(1,'actv');
INSERT INTO monitoring_metrics VALUES(2,'grad_unreduced');
INSERT INTO monitoring_targets VALUES(4,'layers.0.mlp.linear_fc1.weight',0,0);
INSERT INTO monitoring_targets VALUES(9,'layers.0.mlp.output',1,0);
INSERT INTO trend_data VALUES(0,0,4,2,0.5);
INSERT INTO trend_data VALUES(0,0,9,1,12.25);
INSERT INTO trend_data VALUES(0,1,4,2,NULL);
INSERT INTO trend_data VALUES(0,1,9,1,-1000000001.0);
