// Package analysis is the method: Phase 1 (candidates), Phase 2 (the
// root-cause coordinate) and Phase 3 (the four-group trace), as pure
// functions of model values. It reads no file and imports no reader
// (ingest); every rule of the seed is a named function, listed here in the
// seed's order so that a rule found in the seed can be found in the code.
// Methods are named Type.method; doc_test.go checks every name exists.
//
// # Phase 1: candidate coordinates ([Phase1], [Phase1Data])
//
// Step 0, the run's shape ([runShape]):
//   - pipeline stages: from the parameter names per rank [inferStages]
//     ([stagesFromMarkers], [stagesFromNameSets]), from gradient levels when
//     every rank holds the same names [stagesFromLevels], then
//     [splitStages]; [InferStages] for other callers; MoE expert
//     parameters per rank for the conclusion's wording [expertLayout];
//   - the accumulation window (norms that reset periodically mean step is a
//     micro step): [accumulationWindow] with [tallyTransitions] and
//     [stepTally.periodicFit], grad_reduced rows as window starts
//     [reducedWindow]; optimizer step and micro step from it
//     [stepMapper.mapStep]; micro steps in the input's own numbering
//     [numberMicroSteps];
//   - dumps, one step or several, one parameters_grad call or one per micro
//     batch: [dumpCallCount], [dumpCallMicroSteps].
//
// Step 1, anomaly detection by data kind:
//   - step level, a global robust (MAD/IQR) baseline: [stepLevelSpikes]
//     with [robustJudge.prescreen] and [robustJudge.judge] (the robust
//     estimator's pool with rank-picked quantiles, [robustPool.mad], the
//     judged value left out; the rules screen with
//     [robustJudge.prescreenFlaggable], which leaves a pool unsorted when
//     [robustJudge.cannotFlag] proves none of its candidates flagged), on values
//     divided by their step's common level [stepLevelFactors] and the
//     series' own scale [seriesScales];
//   - accumulated micro steps, each micro batch's own contribution:
//     [microStepSpikes], [p1.microCurves], [p1.microJudgePool]; short
//     runs, per-micro-step medians [medianPerMicro];
//   - dumps, the top N of one step [dumpSpikes] (several steps: the
//     step-level rule);
//   - too little history: a series below minHistory values
//     [historyScratch.tooShort] reports what passed [historyScratch.unflag]
//     instead of flagging it, unless [beyondShortHistory];
//   - heavy tails of real gradient noise: a value that passed stands
//     tailSpreads spreads of the run's step-to-step noise above its
//     median [noiseFloor], [tailScratch.spreadBefore];
//   - NaN/Inf as candidates of their own [nonFiniteCandidates];
//   - earliest first, never largest first [earliestFirst]; the final norms
//     Phase 2 needs [targetRankNorms].
//
// # Phase 2: the root-cause coordinate ([Phase2])
//
// Step 2.1, the focus target of each optimizer step: [topTargetsPerStep]
// (the target of [targetRankNorms]).
//
// Step 2.2, the cross-step rule (growth ≥ 2× on ≥ 60% of the ranks from k to
// the next recorded step: the root is k; the earliest qualifying pair wins;
// only the anomalous side decides): [crossStepRoot], [judgePair],
// [growthCount], [adjacentSteps]; one step back when k-1 already polluted k
// [prePair]; otherwise the largest deviation (a first NaN/Inf before it)
// [fallbackRoot], [persistentStart]. Independent spike events and the
// earliest one as root: [buildEvents], [eventExtent], [describeEvents],
// [eventRoot].
//
// Step 2.3, the coordinate: [candidatesAt], in Phase 1's ranking — the
// deviation from the parameter's own baseline, never the raw delta or
// norm across parameters [sortForCoordinate], [earliestFirst]; whether the
// parameter locates the origin at all (every parameter of the rank
// non-finite, or most spiking together: no) [ParameterLocatesOrigin],
// [judgeParameter]; the value compared with the baseline [coordValue], checked against the baseline at the same place (≥ 2× or
// missing: device-specific) [pickCoordinate], [baselineMatch],
// [baselineVerdictOf], by global layer on another pipeline layout
// [baselineKey]. A pinned coordinate (a model.Coord, read once from --pin)
// skips the phase: [applyPin], [resolveStageParam].
//
// The root step as the training log sees it: the global gradient norm of
// every rank around the root step and the share of its increase by
// parameter, layer and rank [GradNormAround] ([gradNormFinal],
// [gradNormShare]).
//
// # The verdict ([Verdict])
//
// All phases that ran, summed up once: Phase 3 against a real baseline dump
// first ([verdictBuild.fromPhase3]), then Phase 2's baseline label
// ([verdictBuild.fromBaseline]), then one device's extent
// ([verdictBuild.oneDevice], [verdictBuild.dynamics]); each event's own
// class [EventCause].
//
// # Phase 3: the four-group trace ([Phase3], [NewTracer])
//
// Step 3.1, the groups A, B, C, D and the degree (A/B)/(C/D): C not among
// the Phase 1 candidates, its gradient norm below the directory's P75, on
// A's pipeline stage [ChooseControl], [spikeRankQuantile], [otherStage];
// the degree [groupRatio], [degree] (without C/D, A/B against the
// other ops' robust band [robustLogBand], [callAnalysis.degradedBand]); the
// rank to dump as C [SuggestControlRank], [StageControlRanks]; dump steps
// matched to optimizer steps by their gradient norms (a re-based trend.db)
// [DumpStepOffset], [Phase1InDumpSteps]; the micro batch to trace
// [anchorCall].
//
// Step 3.2, at least three anchor modules aligned in all four groups
// [discoverAnchors], [anchorWarning]; each layer's representative is the
// module's output record, else the largest-Norm aligned op
// [representative]; a pair is compared only when both sides are the same op
// with valid numbers and equal element counts, else unaligned
// [checkPair]; device naming differences normalised [normalizeKey],
// [nameMaps], [AlignDumps].
//
// Step 3.3, layer by layer, forward and backward, Max/Min/Norm:
// [compareAnchor], [p3.anchorTable]; F!/B! against the control group's
// own noise, median(C/D) + max(3·IQR, 0.03): [controlBand], [degreeBand],
// [outside] (every band a parameterisation of the robust
// estimator [learnBand], [robustPool.band]: scale, IQR or MAD, multiplier, family factor
// [familyFactor], floor, small-sample widening); the band learns only from statistics that can vary, not from
// those fixed by construction (by kind [learnFixedKinds], by value
// [fixedStat]; all fixed: the floor [fixedFloorBand]); with few layers,
// at least as wide as the anchor's own control ratios allow
// [ownSpreadGuard]; groups of different dtypes are said to be
// comparable only at one precision setting [dtypeWarning].
//
// Step 3.4, the direction: [directionVerdict] (unaligned layers are not
// normal: [uncompared]; a tensor masked alike in every group is no
// failure to compare [maskedPair]), forward first as P0 [chooseP0]; a pass
// none of whose statistics can be judged is said so
// [unusablePassWarnings].
//
// Step 3.5, the start of the divergence, not the largest: [divergenceStart]
// (the reference's longest run: [mainSegment]); the first divergent operator
// of the start layer and its upstream: [drillDown], [firstDivergent],
// [upstreamFlagged], [largestLeaf]; where A first turns NaN/Inf and B does
// not (±Inf against the dtype's extreme is the same value) [nonFiniteOrigins],
// [nonFiniteOrigin], [tensorPairNonFinite].
//
// Step 3.6, every metric until none starts earlier: [iterateMetrics],
// [metricStart], [summary]; the data feature check (seq_len/batch)
// [dataFeatureCheck]; the one conclusion every face states (direction,
// start, operator, hedges) [ConcludePhase3].
package analysis
