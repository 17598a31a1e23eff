#!/bin/sh
# The GASNet-EX API with real processes (ex_core; ex_team for teams, ex_coll
# for collectives, ex_atomic for remote atomics, ex_npam for negotiated-payload
# AMs, ex_vis for VIS, ex_tmpair for TM-pairs, ex_segment for disaggregated segments; ex_caffeine and ex_chapel use
# the API as those clients do): an EX client at 1, 2 and 4
# ranks over shm (the default), tcp, and the hybrid across two pretended hosts; then bad arguments, each
# refused with an error naming what was wrong and what is accepted.  Last, in the SEQ build, the
# programs once each over ofi (tcp;ofi_rxm), at 2 and 4 ranks.
. "$(dirname "$0")/../lib.sh"

# ranks_said NAME N PROG LINE: each of the job's N ranks said "PROG: rank R of N: LINE".
ranks_said() {
    if [ "$(printf '%s\n' "$out" | grep -c "^$3: rank [0-9]* of $2: $4")" -eq "$2" ]; then
        pass "$1"
    else
        fail "$1" "not every rank finished: $(printf '%s\n' "$out" | tail -5)"
    fi
}
# fatal_case NAME PROG MODE PATTERN: PROG MODE on 2 ranks ends the job (status 1) with PATTERN.
fatal_case() {
    expect_rc "$1" 1 60 env GASNET_EXITTIMEOUT=5 "$GP_RUN" -n 2 "$GPTEST_ITEST/$2" "$3" &&
        check_line "$1" "$4"
}
# shm_tcp_jobs KIND PROG LINE: PROG at 1, 2 and 4 ranks over shm and tcp, as ex/KIND_{shm,tcp}_nN.
shm_tcp_jobs() {
    for n in 1 2 4; do
        expect_rc "ex/$1_shm_n$n" 0 120 "$GP_RUN" -n $n "$GPTEST_ITEST/$2" &&
            ranks_said "ex/$1_shm_n$n" $n "$2" "$3"
        expect_rc "ex/$1_tcp_n$n" 0 120 env GP_TRANSPORT=tcp "$GP_RUN" -n $n "$GPTEST_ITEST/$2" &&
            ranks_said "ex/$1_tcp_n$n" $n "$2" "$3"
    done
}

done_line="every AM category and argument count, every RMA form, events, NBI, queries and HSLs verified"
check_ranks() { ranks_said "$1" "$2" ex_core "$done_line"; } # NAME N

for n in 1 2 4; do
    expect_rc "ex/core_shm_n$n" 0 180 "$GP_RUN" -n $n "$GPTEST_ITEST/ex_core" &&
        check_ranks "ex/core_shm_n$n" $n
    expect_rc "ex/core_tcp_n$n" 0 180 env GP_TRANSPORT=tcp "$GP_RUN" -n $n "$GPTEST_ITEST/ex_core" &&
        check_ranks "ex/core_tcp_n$n" $n
done
# Every put and get through the library, none as the header's inline copy.
expect_rc "ex/core_shm_no_direct_n2" 0 180 env GP_DIRECT_RMA=0 "$GP_RUN" -n 2 "$GPTEST_ITEST/ex_core" &&
    check_ranks "ex/core_shm_no_direct_n2" 2
# Every AM by the Portals protocol, none through the on-node slot rings.
expect_rc "ex/core_shm_portals_am_n2" 0 180 env GP_SHM_AM_RING=0 "$GP_RUN" -n 2 "$GPTEST_ITEST/ex_core" &&
    check_ranks "ex/core_shm_portals_am_n2" 2
tmp=$(mktemp -d /tmp/gp-ex.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
as_host_wrapper "$tmp"
for n in 2 4; do
    expect_rc "ex/core_hybrid_n$n" 0 180 env -u GP_TRANSPORT "$GP_RUN" -n $n "$tmp/as-host" $((n / 2)) \
        "$GPTEST_ITEST/ex_core" &&
        check_ranks "ex/core_hybrid_n$n" $n
done

# GASNet-1 first: gasnet_init and gasnet_attach, then the EX objects and calls.
expect_rc "ex/legacy_first_n2" 0 120 "$GP_RUN" -n 2 "$GPTEST_ITEST/ex_core" legacy &&
    if [ "$(printf '%s\n' "$out" | grep -c "^ex_core: rank [01]: a GASNet-1 client used the EX objects")" -eq 2 ]; then
        pass ex/legacy_first_n2
    else
        fail ex/legacy_first_n2 "not both ranks said so: $(printf '%s\n' "$out" | tail -3)"
    fi

# Refused arguments that return an error code: the line names it, the code comes back.
refused() { # MODE PATTERN RETURNED
    expect_rc "ex/refused_$1" 0 60 env GASNET_EXITTIMEOUT=5 "$GP_RUN" -n 2 "$GPTEST_ITEST/ex_core" "$1" &&
        check_line "ex/refused_$1" "$2" && check_line "ex/refused_$1_code" "$3"
}
refused client_flags "error api: gex_Client_Init: flags 0x20; accepted are GEX_FLAG_USES_GASNET1 and GEX_FLAG_DEFER_THREADS" \
    "returned GASNET_ERR_BAD_ARG"
refused bad_index "error am: handler table entry 0 asks for index 12, which is reserved; client handlers use 128..255, 0 for any free one" \
    "returned GASNET_ERR_BAD_ARG"
refused bad_flags "error am: handler table entry 0 has gex_flags 0x1; it needs GEX_FLAG_AM_REQUEST and/or _REPLY, and GEX_FLAG_AM_SHORT, _MEDIUM and/or _LONG" \
    "returned GASNET_ERR_BAD_ARG"
refused attach_too_big "error api: gex_Segment_Attach: length [0-9]* exceeds gasnet_getMaxLocalSegmentSize() = [0-9]*" \
    "returned GASNET_ERR_RESOURCE"

# Misuse that EX makes fatal: the job ends with the named error.
misuse() { fatal_case "ex/misuse_$1" ex_core "$1" "$2"; } # MODE PATTERN
misuse am_before_attach "FATAL ERROR on node [01]/2: gex_AM_RequestShort called before gex_Segment_Attach"
misuse bad_rank "FATAL ERROR on node [01]/2: gex_RMA_PutBlocking: rank 7 is not in the team (its ranks are 0..1)"
misuse value_size "FATAL ERROR on node [01]/2: gex_RMA_PutBlockingVal: nbytes is 9; value operations take 1 to 8 bytes"
misuse am_lc_defer "FATAL ERROR on node [01]/2: gex_AM_RequestMedium: lc_opt GEX_EVENT_DEFER; accepted are GEX_EVENT_NOW, GEX_EVENT_GROUP or a gex_Event_t pointer"
misuse no_op_event "FATAL ERROR on node [01]/2: gex_Event_Wait: GEX_EVENT_NO_OP is not an event"
misuse rma_offset "FATAL ERROR on node [01]/2: gex_RMA_PutBlocking: flags 0x400 hold GEX_FLAG_SELF_SEG_OFFSET/PEER_SEG_OFFSET, which are not supported (addresses are addresses)"
misuse am_offset "FATAL ERROR on node [01]/2: gex_AM_RequestShort: flags 0x40 hold GEX_FLAG_SELF_SEG_OFFSET/PEER_SEG_OFFSET, which are not supported (addresses are addresses)"

# Teams (ex_team): every rank says it verified its teams.
team_line="splits, creates, destroys, queries and team-rank addressing verified"
check_team_ranks() { ranks_said "$1" "$2" ex_team "$team_line"; } # NAME N
shm_tcp_jobs team ex_team "$team_line"
# Odd sizes leave some parity and half teams of one, and some of two.
expect_rc "ex/team_shm_n3" 0 120 "$GP_RUN" -n 3 "$GPTEST_ITEST/ex_team" && check_team_ranks "ex/team_shm_n3" 3
expect_rc "ex/team_hybrid_n4" 0 120 env -u GP_TRANSPORT "$GP_RUN" -n 4 "$tmp/as-host" 2 \
    "$GPTEST_ITEST/ex_team" && check_team_ranks "ex/team_hybrid_n4" 4
# More splits than a node may lead teams at once (4095): destroyed teams' ids come back.
# Over shm only: tcp's round trips make 4100 of them take a minute.
expect_rc "ex/team_cycles_n4" 0 120 "$GP_RUN" -n 4 "$GPTEST_ITEST/ex_team" cycles 4100 &&
    check_line "ex/team_cycles_n4" "^ex_team: rank 0: 4100 team splits and destroys"
team_misuse() { fatal_case "ex/team_misuse_$1" ex_team "$1" "$2"; } # MODE PATTERN
team_misuse destroy_tm0 "FATAL ERROR on node [01]/2: gex_TM_Destroy: the primordial team lives as long as the client"
team_misuse split_flags "FATAL ERROR on node [01]/2: gex_TM_Split: flags 0x200; accepted are GEX_FLAG_TM_SCRATCH_SIZE_MIN, _SCRATCH_SIZE_RECOMMENDED, GEX_FLAG_TM_GLOBAL_SCRATCH, _LOCAL_SCRATCH, _SYMMETRIC_SCRATCH and _NO_SCRATCH"
team_misuse create_not_member "FATAL ERROR on node [01]/2: gex_TM_Create: this caller (parent rank [01]) is not in its own args; a non-member passes numargs 0"
team_misuse scratch_offset "FATAL ERROR on node [01]/2: gex_TM_Split: GEX_FLAG_SCRATCH_SEG_OFFSET is not supported (scratch is given by address)"
team_misuse scratch_outside "FATAL ERROR on node [01]/2: gex_TM_Split: scratch 0x[0-9a-f]* + 64 bytes is outside this process's segment"

# Collectives (ex_coll): on the primordial and a reversed team, every type and operation.
coll_line="barriers, broadcasts, every built-in and user reduction verified"
check_coll_ranks() { ranks_said "$1" "$2" ex_coll "$coll_line"; } # NAME N
shm_tcp_jobs coll ex_coll "$coll_line"
expect_rc "ex/coll_hybrid_n4" 0 120 env -u GP_TRANSPORT "$GP_RUN" -n 4 "$tmp/as-host" 2 \
    "$GPTEST_ITEST/ex_coll" && check_coll_ranks "ex/coll_hybrid_n4" 4
coll_misuse() { fatal_case "ex/coll_misuse_$1" ex_coll "$1" "$2"; } # MODE PATTERN
coll_misuse bad_dt "FATAL ERROR on node [01]/2: gex_Coll_ReduceToAllNB: dt 0x200; accepted are GEX_DT_I32, _U32, _I64, _U64, _FLT, _DBL and _USER"
coll_misuse fp_and "FATAL ERROR on node [01]/2: gex_Coll_ReduceToAllNB: op 0x1 on dt 0x10; accepted are GEX_OP_ADD, _MULT, _MIN, _MAX (_AND, _OR, _XOR for integer types) and GEX_OP_USER(_NC)"
coll_misuse user_nc_no_fn "FATAL ERROR on node [01]/2: gex_Coll_ReduceToAllNB: GEX_OP_USER_NC with a NULL user_op"
coll_misuse dt_size "FATAL ERROR on node [01]/2: gex_Coll_ReduceToAllNB: dt_sz 8 for a data type of 4 bytes"
coll_misuse bcast_root "FATAL ERROR on node [01]/2: gex_Coll_BroadcastNB: root 2 is not in the team (its ranks are 0..1)"
coll_misuse barrier_flags "FATAL ERROR on node [01]/2: gex_Coll_BarrierNB: flags 0x4; it takes 0"

# Remote atomics (ex_atomic): the hybrid mixes CPU atomics on a mapped neighbour's counter
# with AMs to it from the other pretended host, on one location.
atomic_line="every type and operation, contention and REL/ACQ verified"
check_atomic_ranks() { ranks_said "$1" "$2" ex_atomic "$atomic_line"; } # NAME N
shm_tcp_jobs atomic ex_atomic "$atomic_line"
expect_rc "ex/atomic_hybrid_n4" 0 120 env -u GP_TRANSPORT "$GP_RUN" -n 4 "$tmp/as-host" 2 \
    "$GPTEST_ITEST/ex_atomic" && check_atomic_ranks "ex/atomic_hybrid_n4" 4
atomic_misuse() { fatal_case "ex/atomic_misuse_$1" ex_atomic "$1" "$2"; } # MODE PATTERN
atomic_misuse fp_bitwise "FATAL ERROR on node [01]/2: gex_AD_Create: ops 0xc hold bitwise operations (0x4), which floating-point domains do not take"
atomic_misuse op_not_in_domain "FATAL ERROR on node [01]/2: gex_AD_OpNB_I32: opcode 0x2000000 is not one of the domain's operations (ops 0x8040000)"
atomic_misuse wrong_type "FATAL ERROR on node [01]/2: gex_AD_OpNB_I64: the domain's data type is 0x1, not this call's 0x4"
atomic_misuse misaligned "FATAL ERROR on node [01]/2: atomic on 0x[0-9a-f]* of node 0: not aligned to its 4-byte type"
atomic_misuse no_result "FATAL ERROR on node [01]/2: gex_AD_OpNB_I32: result_p is NULL for a fetching operation (0x40000)"

# Negotiated-payload AMs (ex_npam): every Prepare/Commit/Cancel form at every arity.
npam_line="every Prepare/Commit/Cancel form at 0..16 arguments verified"
shm_tcp_jobs npam ex_npam "$npam_line"
npam_misuse() { fatal_case "ex/npam_misuse_$1" ex_npam "$1" "$2"; } # MODE PATTERN
npam_misuse commit_nargs "FATAL ERROR on node [01]/2: gex_AM_CommitRequestMedium: 3 handler arguments, but its Prepare announced 2"
npam_misuse commit_twice "FATAL ERROR on node [01]/2: gex_AM_CommitRequestMedium: sd 0x[0-9a-f]* is not this thread's live descriptor from gex_AM_PrepareRequestMedium"
npam_misuse least_over "FATAL ERROR on node [01]/2: gex_AM_PrepareRequestMedium: least_payload 961 exceeds the Medium limit of 960"
npam_misuse nbytes_over "FATAL ERROR on node [01]/2: gex_AM_CommitRequestMedium: nbytes 200 is outside \\[least_payload 0, granted size 100\\]"
npam_misuse lc_gp_buffer "FATAL ERROR on node [01]/2: gex_AM_PrepareRequestLong: lc_opt 0x1 with client_buf NULL; gp's buffer takes lc_opt NULL"
# TM-pairs (ex_tmpair): every point-to-point kind addressed by jobrank through gex_TM_Pair.
tmpair_line="RMA, AM, VIS and queries by TM-pair verified"
shm_tcp_jobs tmpair ex_tmpair "$tmpair_line"
expect_rc "ex/tmpair_hybrid_n4" 0 120 env -u GP_TRANSPORT "$GP_RUN" -n 4 "$tmp/as-host" 2 \
    "$GPTEST_ITEST/ex_tmpair" && ranks_said "ex/tmpair_hybrid_n4" 4 ex_tmpair "$tmpair_line"
tmpair_misuse() { fatal_case "ex/tmpair_misuse_$1" ex_tmpair "$1" "$2"; } # MODE PATTERN
tmpair_misuse pair_index "FATAL ERROR on node [01]/2: gex_TM_Pair: remote_ep_index 1; a process has one endpoint (GASNET_MAXEPS 1), index 0"
tmpair_misuse pair_ep "FATAL ERROR on node [01]/2: gex_TM_Pair: local_ep (nil) is not this process's endpoint (gex_Client_Init's, 0x[0-9a-f]*)"
tmpair_misuse pair_ad "FATAL ERROR on node [01]/2: gex_AD_Create: 0x[0-9a-f]* is a TM-pair (gex_TM_Pair), which addresses point-to-point calls only; this call takes a team"
tmpair_misuse pair_query "FATAL ERROR on node [01]/2: gex_TM_QueryRank: 0x[0-9a-f]* is a TM-pair (gex_TM_Pair), which addresses point-to-point calls only; this call takes a team"
tmpair_misuse pair_barrier "FATAL ERROR on node [01]/2: gex_Coll_BarrierNB: 0x[0-9a-f]* is a TM-pair (gex_TM_Pair), which addresses point-to-point calls only; this call takes a team"
tmpair_misuse pair_rank "FATAL ERROR on node [01]/2: gex_RMA_PutBlocking: jobrank 2 (addressed by a TM-pair) is not in the job (its ranks are 0..1)"
# Clients shaped as Caffeine's runtime (EX only) and Chapel's GASNet layer (EX init and
# registration, then GASNet-1 calls) use the API.
caffeine_line="team split, strided puts, user reductions and remote fetch-add verified"
shm_tcp_jobs caffeine ex_caffeine "$caffeine_line"
expect_rc "ex/caffeine_hybrid_n4" 0 120 env -u GP_TRANSPORT "$GP_RUN" -n 4 "$tmp/as-host" 2 \
    "$GPTEST_ITEST/ex_caffeine" && ranks_said "ex/caffeine_hybrid_n4" 4 ex_caffeine "$caffeine_line"
chapel_line="EX init and registration, host info, GASNet-1 AMs, puts and gets verified"
shm_tcp_jobs chapel ex_chapel "$chapel_line"
expect_rc "ex/chapel_hybrid_n4" 0 120 env -u GP_TRANSPORT "$GP_RUN" -n 4 "$tmp/as-host" 2 \
    "$GPTEST_ITEST/ex_chapel" && ranks_said "ex/chapel_hybrid_n4" 4 ex_chapel "$chapel_line"
# VIS (ex_vis): every form and sync, transposed and negative strides, leaf and peer completion.
vis_line="vector, indexed and strided puts and gets in every form, leaf and peer completion verified"
shm_tcp_jobs vis ex_vis "$vis_line"
vis_misuse() { fatal_case "ex/vis_misuse_$1" ex_vis "$1" "$2"; } # MODE PATTERN
vis_misuse outside "FATAL ERROR on node [01]/2: gex_VIS_VectorPutBlocking: dstlist\\[0\\] (16 bytes at 0x[0-9a-f]*) lies outside node [01]'s segment"
vis_misuse sizes "FATAL ERROR on node [01]/2: gex_VIS_VectorPutBlocking: the destination pieces hold 8 bytes and the source pieces 16; the totals must agree"
vis_misuse negative_stride "FATAL ERROR on node [01]/2: gex_VIS_StridedPutBlocking: dstaddr\\[0\\] (200 bytes at 0x[0-9a-f]*) lies outside node [01]'s segment"
vis_misuse get_leaf_lc "FATAL ERROR on node [01]/2: gex_VIS_VectorGetNB: flags 0x800; accepted are GEX_FLAG_IMMEDIATE, the segment hints (ENABLE_LEAF_LC is for puts)"
vis_misuse offset "FATAL ERROR on node [01]/2: gex_VIS_VectorPutBlocking: flags 0x400 hold GEX_FLAG_SELF_SEG_OFFSET/PEER_SEG_OFFSET, which are not supported (addresses are addresses)"
vis_misuse peer_nbytes "FATAL ERROR on node [01]/2: gex_VIS_SetPeerCompletionHandler: nbytes 128; the payload takes 0 to GEX_VIS_MAX_PEERCOMPLETION (127)"
# Disaggregated segments (ex_segment): Create with address NULL, Bind and Publish over the
# primordial team leave what Attach does; in "some", odd ranks publish none.
segment_line="create, bind, publish, queries, puts, AM Longs and destroys verified"
segment_some_line="create, bind, publish (odd ranks without a segment), queries, puts, AM Longs and destroys verified"
shm_tcp_jobs segment ex_segment "$segment_line"
for n in 3 4; do
    expect_rc "ex/segment_some_shm_n$n" 0 120 "$GP_RUN" -n $n "$GPTEST_ITEST/ex_segment" some &&
        ranks_said "ex/segment_some_shm_n$n" $n ex_segment "$segment_some_line"
done
expect_rc "ex/segment_some_tcp_n4" 0 120 env GP_TRANSPORT=tcp "$GP_RUN" -n 4 "$GPTEST_ITEST/ex_segment" some &&
    ranks_said "ex/segment_some_tcp_n4" 4 ex_segment "$segment_some_line"
expect_rc "ex/segment_hybrid_n4" 0 120 env -u GP_TRANSPORT "$GP_RUN" -n 4 "$tmp/as-host" 2 \
    "$GPTEST_ITEST/ex_segment" && ranks_said "ex/segment_hybrid_n4" 4 ex_segment "$segment_line"
expect_rc "ex/segment_some_hybrid_n4" 0 120 env -u GP_TRANSPORT "$GP_RUN" -n 4 "$tmp/as-host" 2 \
    "$GPTEST_ITEST/ex_segment" some &&
    ranks_said "ex/segment_some_hybrid_n4" 4 ex_segment "$segment_some_line"
segment_refused() { # MODE PATTERN RETURNED
    expect_rc "ex/segment_refused_$1" 0 60 env GASNET_EXITTIMEOUT=5 "$GP_RUN" -n 2 \
        "$GPTEST_ITEST/ex_segment" "$1" &&
        check_line "ex/segment_refused_$1" "$2" && check_line "ex/segment_refused_$1_code" "$3"
}
segment_refused create_kind "error api: gex_Segment_Create: memory kind (nil); gp takes GEX_MK_HOST only" \
    "returned GASNET_ERR_BAD_ARG"
segment_refused create_too_big "error api: gex_Segment_Create: length [0-9]* exceeds gasnet_getMaxLocalSegmentSize() = [0-9]*" \
    "returned GASNET_ERR_RESOURCE"
segment_misuse() { fatal_case "ex/segment_misuse_$1" ex_segment "$1" "$2"; } # MODE PATTERN
segment_misuse bind_client "FATAL ERROR on node [01]/2: gex_EP_BindSegment: segment 0x[0-9a-f]* (1000 bytes at 0x[0-9a-f]*) is client memory, which gp's transports cannot serve (on-host peers map, and NICs register, only the memory the conduit allocates as its network opens); accepted is a segment gex_Segment_Create made with address NULL before the first gex_EP_PublishBoundSegment or gex_Segment_Attach"
segment_misuse bind_private "FATAL ERROR on node [01]/2: gex_EP_BindSegment: segment 0x[0-9a-f]* (4096 bytes at 0x[0-9a-f]*) is memory allocated after the network opened, which gp's transports cannot serve"
segment_misuse bind_late "FATAL ERROR on node [01]/2: gex_EP_BindSegment: the network opened (by gasnet_attach, gex_Segment_Attach or gex_EP_PublishBoundSegment) without a segment for this endpoint; gp binds one only before it opens"
segment_misuse left_out "FATAL ERROR on node [01]/2: gex_EP_PublishBoundSegment: the endpoint's segment 0x[0-9a-f]* was bound but left out of the publish that opened the network"
segment_misuse destroy_bound "FATAL ERROR on node [01]/2: gex_Segment_Destroy: segment 0x[0-9a-f]* is bound to the endpoint; only an unbound one may be destroyed"
segment_misuse attach_after_bind "FATAL ERROR on node [01]/2: gex_Segment_Attach: the endpoint has a segment bound (gex_EP_BindSegment); publish it with gex_EP_PublishBoundSegment instead"

# Over ofi (GP_TRANSPORT=ofi; ofi.sh runs the transport's own cases over every provider), in
# the SEQ build only: the EX face takes the conduit's paths whatever the transport, so one build
# and one provider tell whether the transport carries them.  The first job's debug line says the
# jobs really run over the provider.
ofi_jobs() { # PROG LINE N
    expect_rc "ex/ofi_$1_n$3" 0 180 env GP_TRANSPORT=ofi GP_OFI_PROVIDER="$ofi_provider" \
        "$GP_RUN" -n "$3" "$GPTEST_ITEST/$1" && ranks_said "ex/ofi_$1_n$3" "$3" "$1" "$2"
}
ofi_provider="tcp;ofi_rxm"
if [ "$GPTEST_VARIANT" != seq ]; then
    echo "skip ex/ofi: the SEQ build runs the EX programs over ofi"
elif ! command -v fi_info >/dev/null 2>&1 ||
     ! fi_info -p "$ofi_provider" -t FI_EP_RDM -c FI_RMA >/dev/null 2>&1; then
    echo "skip ex/ofi: libfabric lists no $ofi_provider provider with FI_EP_RDM and FI_RMA here"
else
    expect_rc "ex/ofi_opened" 0 180 env GP_TRANSPORT=ofi GP_OFI_PROVIDER="$ofi_provider" \
        GP_LOG_LEVEL=debug "$GP_RUN" -n 2 "$GPTEST_ITEST/ex_core" &&
        check_line "ex/ofi_opened" "debug ofi: provider $ofi_provider: [0-9]* receive buffers" &&
        check_ranks "ex/ofi_opened" 2
    for n in 2 4; do
        ofi_jobs ex_core "$done_line" $n
        ofi_jobs ex_coll "$coll_line" $n
        ofi_jobs ex_atomic "$atomic_line" $n
        ofi_jobs ex_vis "$vis_line" $n
    done
    ofi_jobs ex_team "$team_line" 4
    ofi_jobs ex_npam "$npam_line" 2
    ofi_jobs ex_tmpair "$tmpair_line" 4
    ofi_jobs ex_caffeine "$caffeine_line" 4
    ofi_jobs ex_segment "$segment_line" 2
    # Chapel's attach of gasnet_getMaxLocalSegmentSize() has ofi register (and so fault in) all
    # of it, seconds per GiB: the case bounds it.
    expect_rc "ex/ofi_ex_chapel_n2" 0 180 env GP_TRANSPORT=ofi GP_OFI_PROVIDER="$ofi_provider" \
        GASNET_MAX_SEGSIZE=64M "$GP_RUN" -n 2 "$GPTEST_ITEST/ex_chapel" &&
        ranks_said "ex/ofi_ex_chapel_n2" 2 ex_chapel "$chapel_line"
fi
end_tests
