;; The scan's multi-literal prefilter (literal-set.ts, `simd`): the places in a buffer where any
;; of up to 8 literals starts, ASCII case-insensitively. Each literal is screened 64 places at
;; a time (four 16-byte vectors) by two of its bytes (its two rarest), compared as
;; `(byte | mask) == value` where mask is 0x20 for a letter (both cases meet its lower case) and
;; 0 otherwise; a place that passes some literal's screen is verified byte by byte. A SIMD screen
;; over two bytes at fixed distance is the generic approach of W. Mula, "SIMD-friendly algorithms
;; for substring searching" (2016).
;;
;; Memory, written by the host: per literal k (0..7) at k*128: value and mask of the first screened
;; byte (v128 splats at +0, +16), of the second (+32, +48), then i32s: the bytes' places in the
;; literal (+64, +68), the literal's length (+72) and the address of its lower-cased bytes (+76).
;; The data lies at `data`; at least 64 bytes past data+len plus the longest literal are readable
;; (a block's last vector, loaded at its last place's far byte).
;; Perf: 64 places a block against 16, over the Linux tree's drivers (903 MB of .c and .h files in
;; memory, one thread), the scan with `mutex_destroy|PSOC_ETR_ITMISCOP0_ACQCOMP_MASK` took 156 ms
;; against 261 ms: four independent screens per literal's loads, one branch per 64 places.
;;
;; The scan's line bookkeeping runs on the same copy of the data: `newlines`, `lastNewline` and
;; `nextNewline` look for 0x0A bytes 16 at a time, within the range they are given.
(module
  (memory (export "memory") 1)

  ;; Whether the literal of table entry `t` is at data+pos (ASCII case-insensitively) and fits in len.
  (func $at (param $t i32) (param $data i32) (param $len i32) (param $pos i32) (result i32)
    (local $n i32) (local $lit i32) (local $p i32) (local $q i32) (local $b i32)
    (local.set $n (i32.load offset=72 (local.get $t)))
    (if (i32.gt_u (i32.add (local.get $pos) (local.get $n)) (local.get $len)) (then (return (i32.const 0))))
    (local.set $lit (i32.load offset=76 (local.get $t)))
    (local.set $p (i32.add (local.get $data) (local.get $pos)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $q) (local.get $n)))
        (local.set $b (i32.load8_u (i32.add (local.get $p) (local.get $q))))
        (if (i32.lt_u (i32.sub (local.get $b) (i32.const 65)) (i32.const 26))
          (then (local.set $b (i32.or (local.get $b) (i32.const 32)))))
        (if (i32.ne (local.get $b) (i32.load8_u (i32.add (local.get $lit) (local.get $q))))
          (then (return (i32.const 0))))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $next)))
    (i32.const 1))

  ;; The places in [from, end) where one of the first `count` literals starts, verified within
  ;; [0, len), in order: at most `max` of them written as i32s from out+4; at `out`, the place the
  ;; next call goes on from (end once all of [from, end) is searched). Returns how many it wrote.
  (func (export "scan") (param $count i32) (param $data i32) (param $len i32) (param $from i32) (param $end i32) (param $out i32) (param $max i32) (result i32)
    (local $i i32) (local $t i32) (local $stop i32) (local $acc v128) (local $acc2 v128) (local $acc3 v128) (local $acc4 v128) (local $bits64 i64) (local $bits i32) (local $pos i32) (local $n i32)
    (local $p1 i32) (local $p2 i32) (local $v1 v128) (local $m1 v128) (local $v2 v128) (local $m2 v128)
    (local.set $stop (i32.mul (local.get $count) (i32.const 128)))
    (local.set $i (local.get $from))
    (block $exit
      (loop $block
        (br_if $exit (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $acc (v128.const i64x2 0 0))
        (local.set $acc2 (v128.const i64x2 0 0))
        (local.set $acc3 (v128.const i64x2 0 0))
        (local.set $acc4 (v128.const i64x2 0 0))
        (local.set $t (i32.const 0))
        (loop $screen
          (local.set $p1 (i32.add (i32.add (local.get $data) (local.get $i)) (i32.load offset=64 (local.get $t))))
          (local.set $p2 (i32.add (i32.add (local.get $data) (local.get $i)) (i32.load offset=68 (local.get $t))))
          (local.set $v1 (v128.load (local.get $t)))
          (local.set $m1 (v128.load offset=16 (local.get $t)))
          (local.set $v2 (v128.load offset=32 (local.get $t)))
          (local.set $m2 (v128.load offset=48 (local.get $t)))
          (local.set $acc
            (v128.or (local.get $acc)
              (v128.and
                (i8x16.eq (v128.or (v128.load (local.get $p1)) (local.get $m1)) (local.get $v1))
                (i8x16.eq (v128.or (v128.load (local.get $p2)) (local.get $m2)) (local.get $v2)))))
          (local.set $acc2
            (v128.or (local.get $acc2)
              (v128.and
                (i8x16.eq (v128.or (v128.load offset=16 (local.get $p1)) (local.get $m1)) (local.get $v1))
                (i8x16.eq (v128.or (v128.load offset=16 (local.get $p2)) (local.get $m2)) (local.get $v2)))))
          (local.set $acc3
            (v128.or (local.get $acc3)
              (v128.and
                (i8x16.eq (v128.or (v128.load offset=32 (local.get $p1)) (local.get $m1)) (local.get $v1))
                (i8x16.eq (v128.or (v128.load offset=32 (local.get $p2)) (local.get $m2)) (local.get $v2)))))
          (local.set $acc4
            (v128.or (local.get $acc4)
              (v128.and
                (i8x16.eq (v128.or (v128.load offset=48 (local.get $p1)) (local.get $m1)) (local.get $v1))
                (i8x16.eq (v128.or (v128.load offset=48 (local.get $p2)) (local.get $m2)) (local.get $v2)))))
          (local.set $t (i32.add (local.get $t) (i32.const 128)))
          (br_if $screen (i32.lt_u (local.get $t) (local.get $stop))))
        (if (v128.any_true (v128.or (v128.or (local.get $acc) (local.get $acc2)) (v128.or (local.get $acc3) (local.get $acc4))))
          (then
            (local.set $bits64 (i64.or
              (i64.extend_i32_u (i32.or (i8x16.bitmask (local.get $acc)) (i32.shl (i8x16.bitmask (local.get $acc2)) (i32.const 16))))
              (i64.shl (i64.extend_i32_u (i32.or (i8x16.bitmask (local.get $acc3)) (i32.shl (i8x16.bitmask (local.get $acc4)) (i32.const 16)))) (i64.const 32))))
            (loop $candidate
              (local.set $pos (i32.add (local.get $i) (i32.wrap_i64 (i64.ctz (local.get $bits64)))))
              (br_if $exit (i32.ge_u (local.get $pos) (local.get $end)))
              (local.set $t (i32.const 0))
              (block $found
                (loop $verify
                  (if (call $at (local.get $t) (local.get $data) (local.get $len) (local.get $pos))
                    (then
                      (i32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (local.get $pos))
                      (local.set $n (i32.add (local.get $n) (i32.const 1)))
                      (if (i32.ge_u (local.get $n) (local.get $max))
                        (then
                          (i32.store (local.get $out) (i32.add (local.get $pos) (i32.const 1)))
                          (return (local.get $n))))
                      (br $found)))
                  (local.set $t (i32.add (local.get $t) (i32.const 128)))
                  (br_if $verify (i32.lt_u (local.get $t) (local.get $stop)))))
              (local.set $bits64 (i64.and (local.get $bits64) (i64.sub (local.get $bits64) (i64.const 1))))
              (br_if $candidate (i64.ne (local.get $bits64) (i64.const 0))))))
        (local.set $i (i32.add (local.get $i) (i32.const 64)))
        (br $block)))
    (i32.store (local.get $out) (local.get $end))
    (local.get $n))

  ;; The number of newline bytes (0x0A) in data[from, to).
  (func (export "newlines") (param $data i32) (param $from i32) (param $to i32) (result i32)
    (local $p i32) (local $end i32) (local $n i32) (local $nl v128)
    (local.set $nl (i8x16.splat (i32.const 10)))
    (local.set $p (i32.add (local.get $data) (local.get $from)))
    (local.set $end (i32.add (local.get $data) (local.get $to)))
    (block $bytes
      (loop $block
        (br_if $bytes (i32.gt_s (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $n (i32.add (local.get $n)
          (i32.popcnt (i8x16.bitmask (i8x16.eq (v128.load (local.get $p)) (local.get $nl))))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $block)))
    (block $done
      (loop $byte
        (br_if $done (i32.ge_s (local.get $p) (local.get $end)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 10))
          (then (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $byte)))
    (local.get $n))

  ;; The place of the last newline byte in data[from, to), or -1.
  (func (export "lastNewline") (param $data i32) (param $from i32) (param $to i32) (result i32)
    (local $p i32) (local $bits i32) (local $nl v128)
    (local.set $nl (i8x16.splat (i32.const 10)))
    (local.set $p (local.get $to))
    (block $bytes
      (loop $block
        (br_if $bytes (i32.lt_s (i32.sub (local.get $p) (i32.const 16)) (local.get $from)))
        (local.set $p (i32.sub (local.get $p) (i32.const 16)))
        (local.set $bits (i8x16.bitmask (i8x16.eq (v128.load (i32.add (local.get $data) (local.get $p))) (local.get $nl))))
        (if (local.get $bits)
          (then (return (i32.sub (i32.add (local.get $p) (i32.const 31)) (i32.clz (local.get $bits))))))
        (br $block)))
    (block $none
      (loop $byte
        (br_if $none (i32.le_s (local.get $p) (local.get $from)))
        (local.set $p (i32.sub (local.get $p) (i32.const 1)))
        (br_if $byte (i32.ne (i32.load8_u (i32.add (local.get $data) (local.get $p))) (i32.const 10)))
        (return (local.get $p))))
    (i32.const -1))

  ;; The place of the first newline byte in data[from, to), or -1.
  (func (export "nextNewline") (param $data i32) (param $from i32) (param $to i32) (result i32)
    (local $p i32) (local $bits i32) (local $nl v128)
    (local.set $nl (i8x16.splat (i32.const 10)))
    (local.set $p (local.get $from))
    (block $bytes
      (loop $block
        (br_if $bytes (i32.gt_s (i32.add (local.get $p) (i32.const 16)) (local.get $to)))
        (local.set $bits (i8x16.bitmask (i8x16.eq (v128.load (i32.add (local.get $data) (local.get $p))) (local.get $nl))))
        (if (local.get $bits)
          (then (return (i32.add (local.get $p) (i32.ctz (local.get $bits))))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $block)))
    (block $none
      (loop $byte
        (br_if $none (i32.ge_s (local.get $p) (local.get $to)))
        (if (i32.eq (i32.load8_u (i32.add (local.get $data) (local.get $p))) (i32.const 10))
          (then (return (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $byte)))
    (i32.const -1))
)
