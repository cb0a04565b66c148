// Package analyze computes, from a program tree, what limits a program's
// parallel speedup and what to fix first: work and span (Cilkview and
// Cilkprof, work-span analysis), a lock bound, a burdened span that
// charges the runtime's fork, join and task costs, Cilkview-style speedup
// bounds for each thread count, a per-region profile (Cilkprof's work,
// span and "work on span" for every section and task name), and what-if
// analysis (OMP-Adviser): a changed copy of the tree with one region made
// faster or its serial computation split into parallel tasks, and a greedy
// search for the regions to parallelize to reach a target parallelism.
//
// # The dependence model
//
// The tree is read as a series-parallel computation:
//
//   - The root's children run in series, one after another. A top-level
//     section always ends with everything joined, with or without nowait,
//     as in emulate.Predict, which adds top-level sections' times.
//   - A section's tasks run in parallel with each other. The U and L nodes
//     of a section itself (time inside the section but outside its tasks)
//     form one serial strand, run in program order by the goroutine that
//     entered the section; a task depends on the strand's nodes before it
//     (they are the code that hands it out) and nothing else. So the span
//     of a section is max(strand, max over tasks i of (strand before i +
//     span of task i)).
//   - A task's children (U, L, nested sections) run in series. After a
//     nested nowait section, the task goes on once the nested section's
//     own strand is done; the nested section's tasks finish in parallel
//     with what follows and are joined at the next section with a barrier
//     or at the end of the task.
//   - A node with Count c stands for c repetitions: c parallel tasks when
//     it is a task of a section, c serial repetitions anywhere else.
//     Repetitions are never expanded: a run of c identical tasks adds c
//     times its work and the span of one, and a *tree.Node shared by
//     several parents is analyzed once (memoized by pointer), so a
//     compressed tree of 10^7 tasks is analyzed in time proportional to
//     its stored size.
//
// Locks are not part of the span: T∞ is the critical path with locks
// ignored (Cilkview's definition). Their effect is the separate lock
// bound: all the critical sections of one lock id run one at a time, so
// a program in which lock id k is held for L_k ns in total cannot run in
// less than max_k L_k.
//
// # Speedup bounds
//
// For P threads, with T1 the work, T∞ the span, L the largest per-lock
// total and B the burdened span:
//
//   - Upper bound. Each of T1/P (work law), T∞ (span law) and L (a lock
//     serializes its critical sections) is a lower bound on the parallel
//     time, so speedup ≤ min(P, T1/T∞, T1/L), the bound Cilkview draws.
//     Because top-level sections run one after another, prophet uses the
//     tighter T1 / Σ_i max(W_i/P, S_i, L_i) over top-level items i (work,
//     span and largest lock total of each); it is never above
//     min(P, T1/T∞, T1/L) and equals it when one section dominates. It is
//     a bound for the ideal machine: runtime overheads and memory
//     contention only lower the real speedup.
//   - Lower bound (Cilkview's estimate). A greedy scheduler finishes in at
//     most T1/P + B (Brent's bound with the burdened span), so speedup ≥
//     T1/(T1/P + B). Where the machine wakes a team's idle cores one after
//     another (Overheads.WakeStepNs), the last of P workers starts P−2
//     steps after the second, so each of the F team starts on one path
//     (Analysis.BurdenedForks) adds that: speedup ≥ T1/(T1/P + B +
//     F·(P−2)·WakeStepNs). It is an estimate, not a guarantee: static
//     schedules are not greedy, and waiting for contended locks is not in
//     B. It is clamped to the upper bound.
//
// # Burdened span
//
// The burdened span is the span recomputed with the runtime costs of
// machine.Overheads charged on the critical path, exactly:
//
//   - every section instance: ForkNs, WakeP50Ns and RunnextNs (the
//     team's other workers start late by the median wake-up latency of
//     an idle core, and the last one forked, which waits in the forking
//     core's runnext slot, by the runnext back-off on top), plus JoinNs
//     unless it is nowait;
//   - every task: max(SpawnNs, ChunkNs), the cost of starting it as a
//     goroutine (spawn) or handing it out as a chunk (worksharing),
//     whichever is larger, so the bound holds for both paradigms;
//   - every L node: LockNs, the uncontended acquire and release.
//
// Costs that scale with the number of tasks on one thread (a spawner
// starting n goroutines one by one) are not charged; the emulators model
// them.
//
// # Regions
//
// A region is a section name ("sec:NAME"), a task name ("task:NAME"), or
// "serial" for the top-level code outside any section. For each region,
// over all its instances (an instance nested inside an instance of the
// same region, as in recursion, counts as part of the outer one, which is
// Cilkprof's top-call-site measurement):
//
//   - WorkNs, SpanNs: the sums of the instances' work and span;
//     Parallelism = WorkNs / SpanNs.
//   - OnSpanNs: the part of the program's critical path that lies inside
//     instances of the region (Cilkprof's work on span, inclusive).
//   - SelfWorkNs, SelfOnSpanNs: the same counting only the region's own U
//     and L nodes, not those of nested regions (Cilkprof's local
//     measurement): the time on the critical path the region's own code
//     is responsible for.
//
// Regions are sorted by SelfOnSpanNs, then OnSpanNs, then WorkNs, all
// descending: the first region is the code whose own computation is the
// largest part of the critical path, the one that limits scaling and the
// first to make faster or parallelize.
//
// # What-if
//
// WhatIf returns a changed copy of a tree (the input is never modified;
// unchanged subtrees are shared). Faster K divides the length of every U
// and L node inside the region's instances by K (rounded to the nearest
// nanosecond). Parallelize K splits the region's own serial computation,
// its U nodes (not L nodes: a critical section stays serial), K ways as
// in OMP-Adviser's bag of tasks: in a task (or the top-level "serial"
// region) each U node of length n becomes a nested section "NAME/splitK"
// of K tasks of n/K (the remainder spread over the first tasks, so the
// work is exact); in a section, the strand's U nodes become K parallel
// tasks of the section each. TargetParallelism applies Parallelize
// greedily to the regions with the most own work on the critical path
// (OMP-Adviser's automatic what-if analysis).
package analyze
