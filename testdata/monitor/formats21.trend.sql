-- formats.md §2.1: the Gen B DDL and rows that msprobe data2db wrote from the §1.3 CSVs
-- (2 ranks x 2 optimizer steps x 2 micro steps, --micro_step true), plus rows for
-- non-finite values: NULL (NaN) and the +-(1e9+1) clamp (+-Inf), and a clamped-finite 1e9.
-- Rebuild: sqlite3 formats21.trend.db < formats21.trend.sql
CREATE TABLE monitoring_targets (
    target_id INTEGER PRIMARY KEY AUTOINCREMENT,
    target_name TEXT NOT NULL,
    vpp_stage INTEGER NOT NULL,
    micro_step INTEGER NOT NULL DEFAULT 0,
    UNIQUE(target_name, vpp_stage, micro_step));
CREATE TABLE monitoring_metrics (
    metric_id INTEGER PRIMARY KEY AUTOINCREMENT,
    metric_name TEXT UNIQUE NOT NULL);
CREATE TABLE monitoring_tags (
    tag_id INTEGER PRIMARY KEY AUTOINCREMENT,
    tag_name TEXT NOT NULL,
    category TEXT NOT NULL,
    metric_id INTEGER NOT NULL,
    UNIQUE(tag_name, category, metric_id),
    FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id));
CREATE TABLE tag_target_mapping (
    tag_id INTEGER NOT NULL,
    target_id INTEGER NOT NULL,
    PRIMARY KEY (tag_id, target_id),
    FOREIGN KEY (tag_id) REFERENCES monitoring_tags(tag_id),
    FOREIGN KEY (target_id) REFERENCES monitoring_target(target_id));
CREATE TABLE global_stats (
    min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, max_rank INTEGER DEFAULT 0,
    grad_reduced TEXT DEFAULT NULL, grad_unreduced TEXT DEFAULT NULL);
CREATE TABLE trend_data (
    rank INTEGER NOT NULL,
    step INTEGER NOT NULL,
    target_id INTEGER NOT NULL,
    metric_id INTEGER NOT NULL,
    norm REAL DEFAULT NULL, min REAL DEFAULT NULL, max REAL DEFAULT NULL, mean REAL DEFAULT NULL,
    PRIMARY KEY (rank, step, target_id, metric_id),
    FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id),
    FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)) WITHOUT ROWID;
INSERT INTO "global_stats" VALUES(0,3,1,'mean,min,max,norm','mean,min,max,norm');
INSERT INTO "monitoring_metrics" VALUES(1,'grad_unreduced');
INSERT INTO "monitoring_metrics" VALUES(2,'grad_reduced');
INSERT INTO "monitoring_targets" VALUES(1,'layers.0.self_attention.linear_qkv.layer_norm_weight',0,0);
INSERT INTO "monitoring_targets" VALUES(2,'layers.0.self_attention.linear_qkv.weight',0,0);
INSERT INTO "monitoring_targets" VALUES(3,'layers.0.mlp.linear_fc2.weight',0,0);
INSERT INTO "monitoring_tags" VALUES(3,'mlp','module',2);
INSERT INTO "monitoring_tags" VALUES(5,'linear_fc2','module',2);
INSERT INTO "monitoring_tags" VALUES(6,'layers.0','layer',2);
INSERT INTO "monitoring_tags" VALUES(7,'layers','module',2);
INSERT INTO "monitoring_tags" VALUES(8,'weight','module',2);
INSERT INTO "monitoring_tags" VALUES(11,'mlp','module',1);
INSERT INTO "tag_target_mapping" VALUES(3,3);
INSERT INTO "tag_target_mapping" VALUES(5,3);
INSERT INTO "trend_data" VALUES(0,0,3,1,0.044257,-0.000217,0.000198,0.0);
INSERT INTO "trend_data" VALUES(0,1,3,1,0.093798,-0.000407,0.000387,0.0);
INSERT INTO "trend_data" VALUES(0,0,3,2,0.065607,-0.000328,0.000338,0.0);
INSERT INTO "trend_data" VALUES(0,2,3,1,0.045127,-0.00025,0.000253,0.0);
INSERT INTO "trend_data" VALUES(0,3,3,1,0.091693,-0.000424,0.000438,0.0);
INSERT INTO "trend_data" VALUES(0,2,3,2,2.487,-0.012435,0.012808,0.0);
INSERT INTO "trend_data" VALUES(1,2,3,1,0.048242,-0.000288,0.000288,0.0);
INSERT INTO "trend_data" VALUES(1,3,3,1,4.913,-0.02713,0.028179,0.0);
INSERT INTO "trend_data" VALUES(1,2,3,2,2.487,-0.012435,0.012808,0.0);
-- non-finite rows (not in §2.1): NaN as NULL, +-Inf as the clamp, 1e9 stays finite
INSERT INTO "trend_data" VALUES(1,3,2,1,NULL,-1000000001.0,1000000001.0,NULL);
INSERT INTO "trend_data" VALUES(1,3,1,1,1000000000.0,-0.001,0.001,0.0);
