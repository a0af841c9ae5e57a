;; Raw deflate (RFC 1951) and CRC-32, for gzip-wasm.ts: a strict decoder that traps on anything
;; zlib could read differently (over-subscribed or incomplete codes, reserved block types and
;; symbols, distances before the output's start, output past its capacity, input cut short), so a
;; stream it accepts is one zlib inflates to the same bytes; on a trap the caller falls back to zlib.
;;
;; Memory: [0, 1024) the CRC table, [1024, 8320) Huffman tables, code lengths and the RFC's
;; constants, [8448, 11520) the CRC's slicing tables, from 16384 (INPUT_AT in gzip-wasm.ts) the
;; caller's input and output. One file past ~400 lines: a WebAssembly text module cannot be split
;; across files, and its functions share the one memory layout above.
(module
  (memory (export "memory") 1)

  (global $inPos (mut i32) (i32.const 0))
  (global $inEnd (mut i32) (i32.const 0))
  (global $bitBuf (mut i32) (i32.const 0))
  (global $bitCnt (mut i32) (i32.const 0))
  (global $out (mut i32) (i32.const 0))
  (global $outStart (mut i32) (i32.const 0))
  (global $outEnd (mut i32) (i32.const 0))
  ;; where the deflate stream ended (the first byte after its last block)
  (global $streamEnd (export "streamEnd") (mut i32) (i32.const 0))

  ;; table addresses: counts[16] and symbols[320] as i32 each
  (global $LENCNT i32 (i32.const 1024))
  (global $LENSYM i32 (i32.const 1088))
  (global $DISTCNT i32 (i32.const 2240))
  (global $DISTSYM i32 (i32.const 2304))
  (global $LENGTHS i32 (i32.const 2432))
  (global $OFFS i32 (i32.const 3712))
  (global $CLCNT i32 (i32.const 3776))
  (global $CLSYM i32 (i32.const 3840))
  ;; base values and extra bits of length codes 257..285 and distance codes 0..29, as i16
  (global $ORDER i32 (i32.const 3920))
  (global $LBASE i32 (i32.const 3940))
  (global $LEXT i32 (i32.const 4000))
  (global $DBASE i32 (i32.const 4032))
  (global $DEXT i32 (i32.const 4096))
  ;; next canonical code of each length, and the 9-bit lookup tables of literal/length and
  ;; distance codes: entry = symbol << 4 | length, 0 where the code is longer than 9 bits
  (global $NEXT i32 (i32.const 4160))
  (global $LENFAST i32 (i32.const 4224))
  (global $DISTFAST i32 (i32.const 6272))
  ;; the CRC-32 tables of a byte followed by one, two and three zero bytes
  (global $CRC1 i32 (i32.const 8448))
  (global $CRC2 i32 (i32.const 9472))
  (global $CRC3 i32 (i32.const 10496))
  (data (i32.const 3940)
    "\03\00\04\00\05\00\06\00\07\00\08\00\09\00\0a\00\0b\00\0d\00\0f\00\11\00\13\00\17\00\1b\00\1f\00\23\00\2b\00\33\00\3b\00\43\00\53\00\63\00\73\00\83\00\a3\00\c3\00\e3\00\02\01")
  (data (i32.const 4000)
    "\00\00\00\00\00\00\00\00\01\01\01\01\02\02\02\02\03\03\03\03\04\04\04\04\05\05\05\05\00")
  (data (i32.const 4032)
    "\01\00\02\00\03\00\04\00\05\00\07\00\09\00\0d\00\11\00\19\00\21\00\31\00\41\00\61\00\81\00\c1\00\01\01\81\01\01\02\01\03\01\04\01\06\01\08\01\0c\01\10\01\18\01\20\01\30\01\40\01\60")
  (data (i32.const 4096)
    "\00\00\00\00\01\01\02\02\03\03\04\04\05\05\06\06\07\07\08\08\09\09\0a\0a\0b\0b\0c\0c\0d\0d")

  ;; the next n bits (n <= 16), least significant first; traps past the input's end
  (func $bits (param $n i32) (result i32)
    (local $v i32)
    (block $done
      (loop $fill
        (br_if $done (i32.ge_u (global.get $bitCnt) (local.get $n)))
        (if (i32.ge_u (global.get $inPos) (global.get $inEnd)) (then unreachable))
        (global.set $bitBuf
          (i32.or (global.get $bitBuf)
            (i32.shl (i32.load8_u (global.get $inPos)) (global.get $bitCnt))))
        (global.set $inPos (i32.add (global.get $inPos) (i32.const 1)))
        (global.set $bitCnt (i32.add (global.get $bitCnt) (i32.const 8)))
        (br $fill)))
    (local.set $v
      (i32.and (global.get $bitBuf)
        (i32.sub (i32.shl (i32.const 1) (local.get $n)) (i32.const 1))))
    (global.set $bitBuf (i32.shr_u (global.get $bitBuf) (local.get $n)))
    (global.set $bitCnt (i32.sub (global.get $bitCnt) (local.get $n)))
    (local.get $v))

  ;; canonical Huffman tables from n code lengths at $lens: counts at $cnt, symbols at $sym in
  ;; code order, and (when $fast is not 0) the 9-bit lookup table at $fast; traps on an
  ;; over-subscribed or incomplete set of lengths
  (func $build (param $cnt i32) (param $sym i32) (param $lens i32) (param $n i32) (param $fast i32)
    (local $i i32) (local $len i32) (local $left i32) (local $p i32) (local $code i32) (local $rev i32) (local $k i32)
    (local.set $i (i32.const 0))
    (loop $zero
      (i32.store (i32.add (local.get $cnt) (i32.shl (local.get $i) (i32.const 2))) (i32.const 0))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $zero (i32.lt_u (local.get $i) (i32.const 16))))
    (local.set $i (i32.const 0))
    (block $counted
      (loop $count
        (br_if $counted (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $p
          (i32.add (local.get $cnt)
            (i32.shl (i32.load (i32.add (local.get $lens) (i32.shl (local.get $i) (i32.const 2)))) (i32.const 2))))
        (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $count)))
    (local.set $left (i32.const 1))
    (local.set $len (i32.const 1))
    (loop $check
      (local.set $left
        (i32.sub (i32.shl (local.get $left) (i32.const 1))
          (i32.load (i32.add (local.get $cnt) (i32.shl (local.get $len) (i32.const 2))))))
      (if (i32.lt_s (local.get $left) (i32.const 0)) (then unreachable))
      (local.set $len (i32.add (local.get $len) (i32.const 1)))
      (br_if $check (i32.lt_u (local.get $len) (i32.const 16))))
    (if (i32.ne (local.get $left) (i32.const 0)) (then unreachable))
    ;; offsets of each length's first symbol
    (i32.store (i32.add (global.get $OFFS) (i32.const 4)) (i32.const 0))
    (local.set $len (i32.const 1))
    (loop $offs
      (i32.store (i32.add (global.get $OFFS) (i32.shl (i32.add (local.get $len) (i32.const 1)) (i32.const 2)))
        (i32.add
          (i32.load (i32.add (global.get $OFFS) (i32.shl (local.get $len) (i32.const 2))))
          (i32.load (i32.add (local.get $cnt) (i32.shl (local.get $len) (i32.const 2))))))
      (local.set $len (i32.add (local.get $len) (i32.const 1)))
      (br_if $offs (i32.lt_u (local.get $len) (i32.const 15))))
    (local.set $i (i32.const 0))
    (block $placed
      (loop $place
        (br_if $placed (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $len (i32.load (i32.add (local.get $lens) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.ne (local.get $len) (i32.const 0))
          (then
            (local.set $p (i32.add (global.get $OFFS) (i32.shl (local.get $len) (i32.const 2))))
            (i32.store (i32.add (local.get $sym) (i32.shl (i32.load (local.get $p)) (i32.const 2))) (local.get $i))
            (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $place)))
    (if (i32.eqz (local.get $fast)) (then return))
    ;; first codes of each length (RFC 1951 3.2.2), then each code of 9 bits or fewer, bit-reversed
    ;; as the stream holds it, in every table slot it prefixes
    (local.set $code (i32.const 0))
    (local.set $len (i32.const 1))
    (loop $first
      (if (i32.gt_u (local.get $len) (i32.const 1))
        (then
          (local.set $code
            (i32.shl
              (i32.add (local.get $code)
                (i32.load (i32.add (local.get $cnt) (i32.shl (i32.sub (local.get $len) (i32.const 1)) (i32.const 2)))))
              (i32.const 1)))))
      (i32.store (i32.add (global.get $NEXT) (i32.shl (local.get $len) (i32.const 2))) (local.get $code))
      (local.set $len (i32.add (local.get $len) (i32.const 1)))
      (br_if $first (i32.lt_u (local.get $len) (i32.const 16))))
    (memory.fill (local.get $fast) (i32.const 0) (i32.const 2048))
    (local.set $i (i32.const 0))
    (block $filled
      (loop $fill
        (br_if $filled (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $len (i32.load (i32.add (local.get $lens) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.ne (local.get $len) (i32.const 0))
          (then
            (local.set $p (i32.add (global.get $NEXT) (i32.shl (local.get $len) (i32.const 2))))
            (local.set $code (i32.load (local.get $p)))
            (i32.store (local.get $p) (i32.add (local.get $code) (i32.const 1)))
            (if (i32.le_u (local.get $len) (i32.const 9))
              (then
                (local.set $rev (i32.const 0))
                (local.set $k (local.get $len))
                (loop $reverse
                  (local.set $rev (i32.or (i32.shl (local.get $rev) (i32.const 1)) (i32.and (local.get $code) (i32.const 1))))
                  (local.set $code (i32.shr_u (local.get $code) (i32.const 1)))
                  (local.set $k (i32.sub (local.get $k) (i32.const 1)))
                  (br_if $reverse (local.get $k)))
                (loop $slot
                  (i32.store (i32.add (local.get $fast) (i32.shl (local.get $rev) (i32.const 2)))
                    (i32.or (i32.shl (local.get $i) (i32.const 4)) (local.get $len)))
                  (local.set $rev (i32.add (local.get $rev) (i32.shl (i32.const 1) (local.get $len))))
                  (br_if $slot (i32.lt_u (local.get $rev) (i32.const 512))))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $fill))))

  ;; one symbol, read a bit at a time against the canonical code; traps on a code no symbol has
  (func $decode (param $cnt i32) (param $sym i32) (result i32)
    (local $code i32) (local $first i32) (local $index i32) (local $len i32) (local $count i32)
    (local.set $len (i32.const 1))
    (loop $next
      (local.set $code (i32.or (local.get $code) (call $bits (i32.const 1))))
      (local.set $count (i32.load (i32.add (local.get $cnt) (i32.shl (local.get $len) (i32.const 2)))))
      (if (i32.lt_s (i32.sub (local.get $code) (local.get $first)) (local.get $count))
        (then
          (return
            (i32.load (i32.add (local.get $sym)
              (i32.shl (i32.add (local.get $index) (i32.sub (local.get $code) (local.get $first))) (i32.const 2)))))))
      (local.set $index (i32.add (local.get $index) (local.get $count)))
      (local.set $first (i32.shl (i32.add (local.get $first) (local.get $count)) (i32.const 1)))
      (local.set $code (i32.shl (local.get $code) (i32.const 1)))
      (local.set $len (i32.add (local.get $len) (i32.const 1)))
      (br_if $next (i32.lt_u (local.get $len) (i32.const 16))))
    unreachable)

  ;; the literals and matches of a compressed block, up to its end-of-block code; the bit reader's
  ;; state is kept in locals here (it is most of the work) and handed to $decode through the
  ;; globals when a code is longer than the 9-bit tables
  (func $codes
    (local $s i32) (local $len i32) (local $dist i32) (local $from i32) (local $e i32) (local $n i32)
    (local $buf i32) (local $cnt i32) (local $in i32) (local $o i32)
    (local.set $buf (global.get $bitBuf))
    (local.set $cnt (global.get $bitCnt))
    (local.set $in (global.get $inPos))
    (local.set $o (global.get $out))
    (loop $next
      ;; literal/length symbol
      (block $full
        (loop $top
          (br_if $full (i32.ge_u (local.get $cnt) (i32.const 9)))
          (br_if $full (i32.ge_u (local.get $in) (global.get $inEnd)))
          (local.set $buf (i32.or (local.get $buf) (i32.shl (i32.load8_u (local.get $in)) (local.get $cnt))))
          (local.set $in (i32.add (local.get $in) (i32.const 1)))
          (local.set $cnt (i32.add (local.get $cnt) (i32.const 8)))
          (br $top)))
      (local.set $e (i32.load (i32.add (global.get $LENFAST) (i32.shl (i32.and (local.get $buf) (i32.const 511)) (i32.const 2)))))
      (local.set $n (i32.and (local.get $e) (i32.const 15)))
      (if (i32.and (i32.ne (local.get $n) (i32.const 0)) (i32.le_u (local.get $n) (local.get $cnt)))
        (then
          (local.set $buf (i32.shr_u (local.get $buf) (local.get $n)))
          (local.set $cnt (i32.sub (local.get $cnt) (local.get $n)))
          (local.set $s (i32.shr_u (local.get $e) (i32.const 4))))
        (else
          (global.set $bitBuf (local.get $buf))
          (global.set $bitCnt (local.get $cnt))
          (global.set $inPos (local.get $in))
          (local.set $s (call $decode (global.get $LENCNT) (global.get $LENSYM)))
          (local.set $buf (global.get $bitBuf))
          (local.set $cnt (global.get $bitCnt))
          (local.set $in (global.get $inPos))))
      (if (i32.lt_u (local.get $s) (i32.const 256))
        (then
          (if (i32.ge_u (local.get $o) (global.get $outEnd)) (then unreachable))
          (i32.store8 (local.get $o) (local.get $s))
          (local.set $o (i32.add (local.get $o) (i32.const 1)))
          (br $next)))
      (if (i32.eq (local.get $s) (i32.const 256))
        (then
          (global.set $bitBuf (local.get $buf))
          (global.set $bitCnt (local.get $cnt))
          (global.set $inPos (local.get $in))
          (global.set $out (local.get $o))
          (return)))
      (local.set $s (i32.sub (local.get $s) (i32.const 257)))
      (if (i32.ge_u (local.get $s) (i32.const 29)) (then unreachable))
      ;; the length's extra bits
      (local.set $n (i32.load8_u (i32.add (global.get $LEXT) (local.get $s))))
      (block $have
        (loop $more
          (br_if $have (i32.ge_u (local.get $cnt) (local.get $n)))
          (if (i32.ge_u (local.get $in) (global.get $inEnd)) (then unreachable))
          (local.set $buf (i32.or (local.get $buf) (i32.shl (i32.load8_u (local.get $in)) (local.get $cnt))))
          (local.set $in (i32.add (local.get $in) (i32.const 1)))
          (local.set $cnt (i32.add (local.get $cnt) (i32.const 8)))
          (br $more)))
      (local.set $len
        (i32.add (i32.load16_u (i32.add (global.get $LBASE) (i32.shl (local.get $s) (i32.const 1))))
          (i32.and (local.get $buf) (i32.sub (i32.shl (i32.const 1) (local.get $n)) (i32.const 1)))))
      (local.set $buf (i32.shr_u (local.get $buf) (local.get $n)))
      (local.set $cnt (i32.sub (local.get $cnt) (local.get $n)))
      ;; distance symbol
      (block $full2
        (loop $top2
          (br_if $full2 (i32.ge_u (local.get $cnt) (i32.const 9)))
          (br_if $full2 (i32.ge_u (local.get $in) (global.get $inEnd)))
          (local.set $buf (i32.or (local.get $buf) (i32.shl (i32.load8_u (local.get $in)) (local.get $cnt))))
          (local.set $in (i32.add (local.get $in) (i32.const 1)))
          (local.set $cnt (i32.add (local.get $cnt) (i32.const 8)))
          (br $top2)))
      (local.set $e (i32.load (i32.add (global.get $DISTFAST) (i32.shl (i32.and (local.get $buf) (i32.const 511)) (i32.const 2)))))
      (local.set $n (i32.and (local.get $e) (i32.const 15)))
      (if (i32.and (i32.ne (local.get $n) (i32.const 0)) (i32.le_u (local.get $n) (local.get $cnt)))
        (then
          (local.set $buf (i32.shr_u (local.get $buf) (local.get $n)))
          (local.set $cnt (i32.sub (local.get $cnt) (local.get $n)))
          (local.set $s (i32.shr_u (local.get $e) (i32.const 4))))
        (else
          (global.set $bitBuf (local.get $buf))
          (global.set $bitCnt (local.get $cnt))
          (global.set $inPos (local.get $in))
          (local.set $s (call $decode (global.get $DISTCNT) (global.get $DISTSYM)))
          (local.set $buf (global.get $bitBuf))
          (local.set $cnt (global.get $bitCnt))
          (local.set $in (global.get $inPos))))
      (if (i32.ge_u (local.get $s) (i32.const 30)) (then unreachable))
      ;; the distance's extra bits (up to 13)
      (local.set $n (i32.load8_u (i32.add (global.get $DEXT) (local.get $s))))
      (block $have2
        (loop $more2
          (br_if $have2 (i32.ge_u (local.get $cnt) (local.get $n)))
          (if (i32.ge_u (local.get $in) (global.get $inEnd)) (then unreachable))
          (local.set $buf (i32.or (local.get $buf) (i32.shl (i32.load8_u (local.get $in)) (local.get $cnt))))
          (local.set $in (i32.add (local.get $in) (i32.const 1)))
          (local.set $cnt (i32.add (local.get $cnt) (i32.const 8)))
          (br $more2)))
      (local.set $dist
        (i32.add (i32.load16_u (i32.add (global.get $DBASE) (i32.shl (local.get $s) (i32.const 1))))
          (i32.and (local.get $buf) (i32.sub (i32.shl (i32.const 1) (local.get $n)) (i32.const 1)))))
      (local.set $buf (i32.shr_u (local.get $buf) (local.get $n)))
      (local.set $cnt (i32.sub (local.get $cnt) (local.get $n)))
      (if (i32.gt_u (local.get $dist) (i32.sub (local.get $o) (global.get $outStart))) (then unreachable))
      (if (i32.gt_u (local.get $len) (i32.sub (global.get $outEnd) (local.get $o))) (then unreachable))
      (local.set $from (i32.sub (local.get $o) (local.get $dist)))
      (if (i32.ge_u (local.get $dist) (local.get $len))
        (then (memory.copy (local.get $o) (local.get $from) (local.get $len)))
        (else
          ;; an overlapping match repeats the bytes it copies: byte by byte
          (local.set $n (i32.const 0))
          (loop $copy
            (i32.store8 (i32.add (local.get $o) (local.get $n)) (i32.load8_u (i32.add (local.get $from) (local.get $n))))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (br_if $copy (i32.lt_u (local.get $n) (local.get $len))))))
      (local.set $o (i32.add (local.get $o) (local.get $len)))
      (br $next)))

  (func $setLengths (param $from i32) (param $to i32) (param $len i32)
    (block $done
      (loop $set
        (br_if $done (i32.ge_u (local.get $from) (local.get $to)))
        (i32.store (i32.add (global.get $LENGTHS) (i32.shl (local.get $from) (i32.const 2))) (local.get $len))
        (local.set $from (i32.add (local.get $from) (i32.const 1)))
        (br $set))))

  (func $fixed
    (call $setLengths (i32.const 0) (i32.const 144) (i32.const 8))
    (call $setLengths (i32.const 144) (i32.const 256) (i32.const 9))
    (call $setLengths (i32.const 256) (i32.const 280) (i32.const 7))
    (call $setLengths (i32.const 280) (i32.const 288) (i32.const 8))
    (call $build (global.get $LENCNT) (global.get $LENSYM) (global.get $LENGTHS) (i32.const 288) (global.get $LENFAST))
    ;; all 32 five-bit distance codes, so the set is complete; codes 30 and 31 trap in $codes
    (call $setLengths (i32.const 0) (i32.const 32) (i32.const 5))
    (call $build (global.get $DISTCNT) (global.get $DISTSYM) (global.get $LENGTHS) (i32.const 32) (global.get $DISTFAST))
    (call $codes))

  (func $dynamic
    (local $nlen i32) (local $ndist i32) (local $ncode i32) (local $i i32) (local $s i32)
    (local $rep i32) (local $len i32)
    (local.set $nlen (i32.add (call $bits (i32.const 5)) (i32.const 257)))
    (local.set $ndist (i32.add (call $bits (i32.const 5)) (i32.const 1)))
    (local.set $ncode (i32.add (call $bits (i32.const 4)) (i32.const 4)))
    (if (i32.or (i32.gt_u (local.get $nlen) (i32.const 286)) (i32.gt_u (local.get $ndist) (i32.const 30))) (then unreachable))
    ;; the code-length code's lengths, in the order RFC 1951 gives them
    (call $setLengths (i32.const 0) (i32.const 19) (i32.const 0))
    (local.set $i (i32.const 0))
    (block $read
      (loop $cl
        (br_if $read (i32.ge_u (local.get $i) (local.get $ncode)))
        (i32.store
          (i32.add (global.get $LENGTHS)
            (i32.shl (i32.load8_u (i32.add (global.get $ORDER) (local.get $i))) (i32.const 2)))
          (call $bits (i32.const 3)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $cl)))
    (call $build (global.get $CLCNT) (global.get $CLSYM) (global.get $LENGTHS) (i32.const 19) (i32.const 0))
    (local.set $i (i32.const 0))
    (block $lengthsRead
      (loop $lens
        (br_if $lengthsRead (i32.ge_u (local.get $i) (i32.add (local.get $nlen) (local.get $ndist))))
        (local.set $s (call $decode (global.get $CLCNT) (global.get $CLSYM)))
        (if (i32.lt_u (local.get $s) (i32.const 16))
          (then
            (i32.store (i32.add (global.get $LENGTHS) (i32.shl (local.get $i) (i32.const 2))) (local.get $s))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $lens)))
        (local.set $len (i32.const 0))
        (if (i32.eq (local.get $s) (i32.const 16))
          (then
            (if (i32.eqz (local.get $i)) (then unreachable))
            (local.set $len (i32.load (i32.add (global.get $LENGTHS) (i32.shl (i32.sub (local.get $i) (i32.const 1)) (i32.const 2)))))
            (local.set $rep (i32.add (i32.const 3) (call $bits (i32.const 2)))))
          (else
            (if (i32.eq (local.get $s) (i32.const 17))
              (then (local.set $rep (i32.add (i32.const 3) (call $bits (i32.const 3)))))
              (else (local.set $rep (i32.add (i32.const 11) (call $bits (i32.const 7))))))))
        (if (i32.gt_u (i32.add (local.get $i) (local.get $rep)) (i32.add (local.get $nlen) (local.get $ndist))) (then unreachable))
        (call $setLengths (local.get $i) (i32.add (local.get $i) (local.get $rep)) (local.get $len))
        (local.set $i (i32.add (local.get $i) (local.get $rep)))
        (br $lens)))
    ;; a block must be able to end
    (if (i32.eqz (i32.load (i32.add (global.get $LENGTHS) (i32.const 1024)))) (then unreachable))
    (call $build (global.get $LENCNT) (global.get $LENSYM) (global.get $LENGTHS) (local.get $nlen) (global.get $LENFAST))
    (call $build (global.get $DISTCNT) (global.get $DISTSYM)
      (i32.add (global.get $LENGTHS) (i32.shl (local.get $nlen) (i32.const 2))) (local.get $ndist) (global.get $DISTFAST))
    (call $codes))

  (func $stored
    (local $len i32)
    ;; to the next byte boundary: whole bytes already read into the bit buffer are given back
    (global.set $inPos (i32.sub (global.get $inPos) (i32.shr_u (global.get $bitCnt) (i32.const 3))))
    (global.set $bitBuf (i32.const 0))
    (global.set $bitCnt (i32.const 0))
    (if (i32.gt_u (i32.add (global.get $inPos) (i32.const 4)) (global.get $inEnd)) (then unreachable))
    (local.set $len (i32.load16_u (global.get $inPos)))
    (if (i32.ne (local.get $len) (i32.xor (i32.load16_u (i32.add (global.get $inPos) (i32.const 2))) (i32.const 0xffff))) (then unreachable))
    (global.set $inPos (i32.add (global.get $inPos) (i32.const 4)))
    (if (i32.gt_u (local.get $len) (i32.sub (global.get $inEnd) (global.get $inPos))) (then unreachable))
    (if (i32.gt_u (local.get $len) (i32.sub (global.get $outEnd) (global.get $out))) (then unreachable))
    (memory.copy (global.get $out) (global.get $inPos) (local.get $len))
    (global.set $inPos (i32.add (global.get $inPos) (local.get $len)))
    (global.set $out (i32.add (global.get $out) (local.get $len))))

  ;; inflates the raw deflate stream at [in, in + inLen) into [out, out + outCap): the bytes
  ;; written; streamEnd is set to the byte after the stream. Traps on anything it refuses.
  (func (export "inflate") (param $in i32) (param $inLen i32) (param $outPtr i32) (param $outCap i32) (result i32)
    (local $last i32) (local $type i32)
    (global.set $inPos (local.get $in))
    (global.set $inEnd (i32.add (local.get $in) (local.get $inLen)))
    (global.set $bitBuf (i32.const 0))
    (global.set $bitCnt (i32.const 0))
    (global.set $out (local.get $outPtr))
    (global.set $outStart (local.get $outPtr))
    (global.set $outEnd (i32.add (local.get $outPtr) (local.get $outCap)))
    (loop $block
      (local.set $last (call $bits (i32.const 1)))
      (local.set $type (call $bits (i32.const 2)))
      (if (i32.eqz (local.get $type))
        (then (call $stored))
        (else
          (if (i32.eq (local.get $type) (i32.const 1))
            (then (call $fixed))
            (else
              (if (i32.eq (local.get $type) (i32.const 2))
                (then (call $dynamic))
                (else unreachable))))))
      (br_if $block (i32.eqz (local.get $last))))
    (global.set $streamEnd (i32.sub (global.get $inPos) (i32.shr_u (global.get $bitCnt) (i32.const 3))))
    (i32.sub (global.get $out) (local.get $outPtr)))

  ;; the CRC-32 table (polynomial 0xedb88320) and the three tables that read 4 bytes a step: entry
  ;; n of table k is the CRC of byte n followed by k zero bytes; built once
  (func (export "init")
    (local $n i32) (local $c i32) (local $k i32)
    (loop $entry
      (local.set $c (local.get $n))
      (local.set $k (i32.const 8))
      (loop $bit
        (local.set $c
          (if (result i32) (i32.and (local.get $c) (i32.const 1))
            (then (i32.xor (i32.const 0xedb88320) (i32.shr_u (local.get $c) (i32.const 1))))
            (else (i32.shr_u (local.get $c) (i32.const 1)))))
        (local.set $k (i32.sub (local.get $k) (i32.const 1)))
        (br_if $bit (local.get $k)))
      (i32.store (i32.shl (local.get $n) (i32.const 2)) (local.get $c))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br_if $entry (i32.lt_u (local.get $n) (i32.const 256))))
    (local.set $n (i32.const 0))
    (loop $slice
      (local.set $c (i32.load (i32.shl (local.get $n) (i32.const 2))))
      (local.set $k (i32.const 0))
      (loop $next
        (local.set $c
          (i32.xor (i32.shr_u (local.get $c) (i32.const 8))
            (i32.load (i32.shl (i32.and (local.get $c) (i32.const 0xff)) (i32.const 2)))))
        (i32.store
          (i32.add (i32.add (global.get $CRC1) (i32.shl (local.get $k) (i32.const 10))) (i32.shl (local.get $n) (i32.const 2)))
          (local.get $c))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br_if $next (i32.lt_u (local.get $k) (i32.const 3))))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br_if $slice (i32.lt_u (local.get $n) (i32.const 256)))))

  ;; CRC-32 of [ptr, ptr + len), continuing from crc (0 to start)
  (func (export "crc32") (param $ptr i32) (param $len i32) (param $crc i32) (result i32)
    (local $end i32)
    (local.set $crc (i32.xor (local.get $crc) (i32.const -1)))
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    ;; four bytes a step while four remain
    (block $words
      (loop $word
        (br_if $words (i32.gt_u (i32.add (local.get $ptr) (i32.const 4)) (local.get $end)))
        (local.set $crc (i32.xor (local.get $crc) (i32.load (local.get $ptr))))
        (local.set $crc
          (i32.xor
            (i32.xor
              (i32.load (i32.add (global.get $CRC3) (i32.shl (i32.and (local.get $crc) (i32.const 0xff)) (i32.const 2))))
              (i32.load (i32.add (global.get $CRC2) (i32.shl (i32.and (i32.shr_u (local.get $crc) (i32.const 8)) (i32.const 0xff)) (i32.const 2)))))
            (i32.xor
              (i32.load (i32.add (global.get $CRC1) (i32.shl (i32.and (i32.shr_u (local.get $crc) (i32.const 16)) (i32.const 0xff)) (i32.const 2))))
              (i32.load (i32.shl (i32.shr_u (local.get $crc) (i32.const 24)) (i32.const 2))))))
        (local.set $ptr (i32.add (local.get $ptr) (i32.const 4)))
        (br $word)))
    (block $done
      (loop $byte
        (br_if $done (i32.ge_u (local.get $ptr) (local.get $end)))
        (local.set $crc
          (i32.xor
            (i32.load (i32.shl (i32.and (i32.xor (local.get $crc) (i32.load8_u (local.get $ptr))) (i32.const 0xff)) (i32.const 2)))
            (i32.shr_u (local.get $crc) (i32.const 8))))
        (local.set $ptr (i32.add (local.get $ptr) (i32.const 1)))
        (br $byte)))
    (i32.xor (local.get $crc) (i32.const -1)))

  ;; RFC 1951's order of the code-length code's lengths
  (data (i32.const 3920) "\10\11\12\00\08\07\09\06\0a\05\0b\04\0c\03\0d\02\0e\01\0f")
)
