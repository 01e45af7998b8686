set -e
. /tmp/msprobe_kit/ENV.sh
F='{"kind":"linear_channel_scale","step":1,"rank":0,"module":"decoder.layers.1.mlp.linear_fc1","factor":8,"frac":0.25}'
cd /tmp/planrun/ten_npu
/tmp/planrun/launch.sh 2 29831 /tmp/planrun/train_plan.py --config /tmp/planrun/plan2/config_anomalous.json --device npu --ckpt /tmp/planrun/ckpt_ten --warm /tmp/kitruns/warm.pt --out unused --cfgdir /tmp/planrun/cfg_ten_npu --steps 2 --fault "$F"
cd /tmp/planrun/ten_gpu
/tmp/planrun/launch.sh 2 29832 /tmp/planrun/train_plan.py --config /tmp/planrun/plan2/config_baseline.json --device gpu --noise 1e-3 --ckpt /tmp/planrun/ckpt_ten --warm /tmp/kitruns/warm.pt --out unused --cfgdir /tmp/planrun/cfg_ten_gpu --steps 2
