#!/bin/bash
# usage: ab.sh GAME PLAN T   -> cold kernel compile wall with helper B (T>0) or without (T=0)
g=$1; plan=$2; T=$3
d=$(mktemp -d); export FOURY_SIM_CACHE_DIR=$d
here=$(cd "$(dirname "$0")" && pwd); cd "$here/../../.."
if [ "$T" != "0" ]; then python "$here/pre.py" $g $plan $T 2>/tmp/pre_$g.log & bp=$!; fi
s=$(date +%s.%N)
python -c "
import time,importlib
k=importlib.import_module('foury_sim.games.$g.kernel')
t=time.perf_counter(); c=time.process_time(); k._ENTRIES['simulate'](); print('A kernel wall %.1f cpu %.1f' % (time.perf_counter()-t, time.process_time()-c))
" 2>/dev/null
e=$(date +%s.%N); echo "A total $(python -c "print(round($e-$s,1))") T=$T"
if [ "$T" != "0" ]; then kill $bp 2>/dev/null; wait $bp 2>/dev/null; tail -1 /tmp/pre_$g.log; fi
