package model

// LayerMapping is msprobe's layer-mapping file (the YAML that
// `msprobe compare -lm` and `msprobe graph_visualize -lm` read): for a module
// class of the target side (the anomalous device, e.g. MindSpore), which
// child names below a module of that class stand for which names on the
// benchmark side. A key may span several path levels ("language_model.encoder")
// and a value may too; keys can name API calls below the module
// ("flash_attention_score: core_attention_flash.npu_fusion_attention").
// "TopLayer" (older files: "Cell") is the model root.
type LayerMapping struct {
	Path  string                       // the file it was read from
	Rules map[string]map[string]string // class → child name → benchmark child name
}

// LayerMappingRoot is the class name of the model root in a layer-mapping file.
const LayerMappingRoot = "TopLayer"
