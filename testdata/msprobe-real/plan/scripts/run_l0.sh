set -e
. /tmp/msprobe_kit/ENV.sh
cd /tmp/planrun
F='{"kind":"linear_channel_scale","step":1,"rank":0,"module":"decoder.layers.1.mlp.linear_fc1","factor":8,"frac":0.25}'
./launch.sh 2 29811 train_plan.py --level L0 --device npu --ckpt /tmp/planrun/ckpt --warm /tmp/kitruns/warm.pt --out /tmp/planrun/l0_npu --cfgdir /tmp/planrun/cfg --steps 2 --fault "$F"
./launch.sh 2 29812 train_plan.py --level L0 --device gpu --noise 1e-3 --ckpt /tmp/planrun/ckpt --warm /tmp/kitruns/warm.pt --out /tmp/planrun/l0_gpu --cfgdir /tmp/planrun/cfg --steps 2
