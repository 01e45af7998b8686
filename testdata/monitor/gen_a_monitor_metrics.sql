-- Gen A monitor_metrics.db (MSTT csv2db, formats.md §2.4): partition tables metric_{id}_step_{a}_{b};
-- step is the real step, micro_step is part of target identity; inf stored as REAL inf.
-- Rebuild: sqlite3 gen_a_monitor_metrics.db < gen_a_monitor_metrics.sql
CREATE TABLE monitoring_targets (target_id INTEGER PRIMARY KEY AUTOINCREMENT, target_name TEXT NOT NULL, vpp_stage INTEGER NOT NULL, micro_step INTEGER NOT NULL DEFAULT 0, UNIQUE(target_name, vpp_stage, micro_step));
CREATE TABLE monitoring_metrics (metric_id INTEGER PRIMARY KEY AUTOINCREMENT, metric_name TEXT UNIQUE NOT NULL);
CREATE TABLE metric_stats (metric_id INTEGER NOT NULL, stat_name TEXT NOT NULL, PRIMARY KEY (metric_id, stat_name), FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)) WITHOUT ROWID;
CREATE TABLE global_stats (stat_name TEXT PRIMARY KEY, stat_value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE metric_1_step_0_499 (rank INTEGER NOT NULL, step INTEGER NOT NULL CHECK(step BETWEEN 0 AND 499), target_id INTEGER NOT NULL, norm REAL DEFAULT NULL, min REAL DEFAULT NULL, max REAL DEFAULT NULL, mean REAL DEFAULT NULL, PRIMARY KEY (rank, step, target_id), FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id)) WITHOUT ROWID;
CREATE TABLE metric_2_step_0_499 (rank INTEGER NOT NULL, step INTEGER NOT NULL CHECK(step BETWEEN 0 AND 499), target_id INTEGER NOT NULL, norm REAL DEFAULT NULL, min REAL DEFAULT NULL, max REAL DEFAULT NULL, mean REAL DEFAULT NULL, PRIMARY KEY (rank, step, target_id), FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id)) WITHOUT ROWID;
INSERT INTO global_stats VALUES('max_rank',1),('max_step',1),('min_step',0),('step_partition_size',500);
INSERT INTO metric_stats VALUES(1,'max'),(1,'mean'),(1,'min'),(1,'norm'),(2,'max'),(2,'mean'),(2,'min'),(2,'norm');
INSERT INTO monitoring_metrics VALUES(1,'grad_reduced');
INSERT INTO monitoring_metrics VALUES(2,'grad_unreduced');
-- grad_reduced has no micro_step column: micro 0; grad_unreduced micro 0 and 1
INSERT INTO monitoring_targets VALUES(1,'layers.0.mlp.linear_fc2.weight',0,0);
INSERT INTO monitoring_targets VALUES(2,'layers.0.mlp.linear_fc2.weight',0,1);
INSERT INTO metric_1_step_0_499 VALUES(0,0,1,0.065607,-0.000328,0.000338,0.0);
INSERT INTO metric_1_step_0_499 VALUES(0,1,1,2.487,-0.012435,0.012808,0.0);
INSERT INTO metric_2_step_0_499 VALUES(0,0,1,0.17044,-0.000782,0.000479,0.0);
INSERT INTO metric_2_step_0_499 VALUES(0,0,2,0.093798,-0.000407,0.000387,0.0);
INSERT INTO metric_2_step_0_499 VALUES(0,1,1,0.045127,-0.00025,0.000253,0.0);
INSERT INTO metric_2_step_0_499 VALUES(0,1,2,9e999,NULL,0.000438,0.0);
