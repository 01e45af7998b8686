package synth

import (
	"fmt"
	"strings"
)

// Frames of the synthetic call stacks (stack.json). Paths are those of a
// typical MindSpeed/Megatron container.
const (
	sitePkgs = "/usr/local/python3.10/lib/python3.10/site-packages"
	megatron = "/home/ma-user/work/Megatron-LM/megatron"
)

func frame(file string, line int, fn, code string) string {
	return fmt.Sprintf("File %s, line %d, in %s, \n %s", file, line, fn, code)
}

// siteLoc is one source location of a stack frame.
type siteLoc struct {
	file string
	line int
	fn   string
	code string
}

// siteFrame is the innermost model frame of each call site.
var siteFrame = map[string]siteLoc{
	"layer.rms1":        {megatron + "/core/transformer/transformer_layer.py", 383, "forward", "input_layernorm_output = self.input_layernorm(hidden_states)"},
	"layer.ln1":         {megatron + "/core/transformer/transformer_layer.py", 383, "forward", "input_layernorm_output = self.input_layernorm(hidden_states)"},
	"layer.linear_qkv":  {megatron + "/core/tensor_parallel/layers.py", 493, "forward", "output = torch.nn.functional.linear(total_input, weight, bias)"},
	"layer.qkv":         {megatron + "/core/transformer/attention.py", 541, "get_query_key_value_tensors", "mixed_qkv, _ = self.linear_qkv(hidden_states)"},
	"layer.rot_q":       {megatron + "/core/models/common/embeddings/rope_utils.py", 188, "apply_rotary_pos_emb", "return torch_npu.npu_rotary_mul(t, cos_, sin_)"},
	"layer.rot_k":       {megatron + "/core/models/common/embeddings/rope_utils.py", 188, "apply_rotary_pos_emb", "return torch_npu.npu_rotary_mul(t, cos_, sin_)"},
	"layer.fa":          {sitePkgs + "/mindspeed/core/transformer/dot_product_attention.py", 212, "forward", "output = torch_npu.npu_fusion_attention("},
	"layer.core":        {megatron + "/core/transformer/attention.py", 398, "forward", "core_attn_out = self.core_attention("},
	"layer.linear_proj": {megatron + "/core/tensor_parallel/layers.py", 493, "forward", "output = torch.nn.functional.linear(total_input, weight, bias)"},
	"layer.ar_proj":     {megatron + "/core/tensor_parallel/mappings.py", 24, "_reduce", "torch.distributed.all_reduce(input_.contiguous(), group=get_tensor_model_parallel_group())"},
	"layer.proj":        {megatron + "/core/transformer/attention.py", 425, "forward", "output, bias = self.linear_proj(core_attn_out)"},
	"layer.sa":          {megatron + "/core/transformer/transformer_layer.py", 386, "forward", "attention_output_with_bias = self.self_attention("},
	"layer.add_attn":    {megatron + "/core/fusions/fused_bias_dropout.py", 42, "_bias_dropout_add_func", "out = residual + out"},
	"layer.rms2":        {megatron + "/core/transformer/transformer_layer.py", 421, "forward", "pre_mlp_layernorm_output = self.pre_mlp_layernorm(hidden_states)"},
	"layer.ln2":         {megatron + "/core/transformer/transformer_layer.py", 421, "forward", "pre_mlp_layernorm_output = self.pre_mlp_layernorm(hidden_states)"},
	"layer.linear_fc1":  {megatron + "/core/tensor_parallel/layers.py", 493, "forward", "output = torch.nn.functional.linear(total_input, weight, bias)"},
	"layer.fc1":         {megatron + "/core/transformer/mlp.py", 112, "forward", "intermediate_parallel, bias_parallel = self.linear_fc1(hidden_states)"},
	"layer.swiglu":      {sitePkgs + "/mindspeed/core/fusions/fused_swiglu.py", 12, "fused_swiglu", "return torch_npu.npu_swiglu(x, dim=-1)"},
	"layer.linear_fc2":  {megatron + "/core/tensor_parallel/layers.py", 493, "forward", "output = torch.nn.functional.linear(total_input, weight, bias)"},
	"layer.ar_fc2":      {megatron + "/core/tensor_parallel/mappings.py", 24, "_reduce", "torch.distributed.all_reduce(input_.contiguous(), group=get_tensor_model_parallel_group())"},
	"layer.fc2":         {megatron + "/core/transformer/mlp.py", 142, "forward", "output, output_bias = self.linear_fc2(intermediate_parallel)"},
	"layer.mlp":         {megatron + "/core/transformer/transformer_layer.py", 424, "forward", "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)"},
	"layer.add_mlp":     {megatron + "/core/fusions/fused_bias_dropout.py", 42, "_bias_dropout_add_func", "out = residual + out"},
	"layer.layer":       {megatron + "/core/transformer/transformer_block.py", 549, "forward", "hidden_states, context = layer("},
	"top.embedding":     {megatron + "/core/tensor_parallel/layers.py", 251, "forward", "output_parallel = self.weight[masked_input]"},
	"top.ar_emb":        {megatron + "/core/tensor_parallel/mappings.py", 24, "_reduce", "torch.distributed.all_reduce(input_.contiguous(), group=get_tensor_model_parallel_group())"},
	"top.vpe":           {megatron + "/core/models/common/embeddings/language_model_embedding.py", 101, "forward", "word_embeddings = self.word_embeddings(input_ids)"},
	"top.transpose":     {megatron + "/core/models/common/embeddings/language_model_embedding.py", 113, "forward", "embeddings = embeddings.transpose(0, 1).contiguous()"},
	"top.lme":           {megatron + "/core/models/gpt/gpt_model.py", 243, "forward", "decoder_input = self.embedding(input_ids=input_ids, position_ids=position_ids)"},
	"top.rotary":        {megatron + "/core/models/gpt/gpt_model.py", 262, "forward", "rotary_pos_emb = self.rotary_pos_emb(rotary_seq_len)"},
	"top.rms_final":     {megatron + "/core/transformer/transformer_block.py", 572, "forward", "hidden_states = self.final_layernorm(hidden_states)"},
	"top.final_ln":      {megatron + "/core/transformer/transformer_block.py", 572, "forward", "hidden_states = self.final_layernorm(hidden_states)"},
	"top.block":         {megatron + "/core/models/gpt/gpt_model.py", 272, "forward", "hidden_states = self.decoder("},
	"top.linear_out":    {megatron + "/core/tensor_parallel/layers.py", 493, "forward", "output = torch.nn.functional.linear(total_input, weight, bias)"},
	"top.output":        {megatron + "/core/models/gpt/gpt_model.py", 295, "forward", "logits, _ = self.output_layer(hidden_states, weight=output_weight)"},
	"top.gpt":           {megatron + "/core/transformer/module.py", 181, "forward", "outputs = self.module(*inputs, **kwargs)"},
	"top.f16":           {"/home/ma-user/work/pretrain_gpt.py", 190, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,"},
}

// stackFrames is the call stack of a call site: the msprobe hook frame, the
// site's own frame, the frames of the enclosing layer / model, and the
// training loop.
func stackFrames(site string, module bool) []string {
	var fs []string
	if module {
		fs = append(fs, frame(sitePkgs+"/torch/nn/modules/module.py", 1838, "inner", "hook_result = hook(self, args, kwargs, result)"))
	} else {
		fs = append(fs, frame(sitePkgs+"/msprobe/core/dump/api_dump/api_registry.py", 95, "api_function", "return api_instance(*args, **kwargs)"))
	}
	if f, ok := siteFrame[site]; ok {
		fs = append(fs, frame(f.file, f.line, f.fn, f.code))
	}
	if strings.HasPrefix(site, "layer.") && site != "layer.layer" {
		fs = append(fs, frame(megatron+"/core/transformer/transformer_block.py", 549, "forward", "hidden_states, context = layer("))
	}
	if site != "top.f16" {
		fs = append(fs, frame("/home/ma-user/work/pretrain_gpt.py", 190, "forward_step", "output_tensor = model(tokens, position_ids, attention_mask,"))
	}
	return append(fs,
		frame(megatron+"/core/pipeline_parallel/schedules.py", 452, "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step("),
		frame(megatron+"/training/training.py", 1094, "train_step", "losses_reduced = forward_backward_func("),
	)
}
