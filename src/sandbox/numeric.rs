//! Numeric primitives whose Steel versions give a silently wrong answer on
//! some arguments: `(abs -9223372036854775808)` stays negative,
//! `(exact 1e300)` saturates at `i64::MAX`, `(arithmetic-shift 1 64)` wraps,
//! `(bitwise-ior 1 (expt 2 65))` drops the big operand. These replacements
//! give the exact answer or an error.

use num_bigint::BigInt;
use num_traits::{FromPrimitive, Signed, ToPrimitive, Zero};
use steel::rerrs::ErrorKind;
use steel::rvals::{Result as SteelResult, SteelVal};
use steel::SteelErr;

fn err(message: String) -> SteelErr {
    SteelErr::new(ErrorKind::TypeMismatch, message)
}

/// An exact integer argument as a big integer.
fn integer(name: &str, v: &SteelVal) -> SteelResult<BigInt> {
    match v {
        SteelVal::IntV(i) => Ok(BigInt::from(*i as i64)),
        SteelVal::BigNum(b) => Ok(b.as_ref().clone()),
        other => Err(err(format!(
            "{name} expects an exact integer, found {}",
            super::printer::render(other, true, 200)
        ))),
    }
}

/// A big integer as the smallest Steel value that holds it.
pub(crate) fn from_big(b: BigInt) -> SteelVal {
    match b.to_isize() {
        Some(i) => SteelVal::IntV(i),
        None => SteelVal::BigNum(steel::gc::Gc::new(b)),
    }
}

pub(crate) fn abs(args: &[SteelVal]) -> SteelResult<SteelVal> {
    match args {
        [SteelVal::IntV(i)] => Ok(match i.checked_abs() {
            Some(a) => SteelVal::IntV(a),
            None => from_big(BigInt::from(*i as i64).abs()),
        }),
        [SteelVal::BigNum(b)] => Ok(from_big(b.as_ref().abs())),
        [SteelVal::NumV(f)] => Ok(SteelVal::NumV(f.abs())),
        [SteelVal::Rational(r)] => Ok(SteelVal::Rational(
            if *r < num_rational::Rational32::zero() {
                -*r
            } else {
                *r
            },
        )),
        [other] => Err(err(format!(
            "abs expects a number, found {}",
            super::printer::render(other, true, 200)
        ))),
        _ => Err(err(format!("abs expects 1 argument, got {}", args.len()))),
    }
}

/// `exact` / `inexact->exact`: integers exactly (big when needed), fractions
/// as rationals when they fit, an error otherwise.
pub(crate) fn exact(args: &[SteelVal]) -> SteelResult<SteelVal> {
    let [v] = args else {
        return Err(err(format!("exact expects 1 argument, got {}", args.len())));
    };
    match v {
        SteelVal::IntV(_) | SteelVal::BigNum(_) | SteelVal::Rational(_) => Ok(v.clone()),
        SteelVal::NumV(f) => {
            if !f.is_finite() {
                return Err(err(format!("exact: {f} has no exact representation")));
            }
            if f.fract() == 0.0 {
                return BigInt::from_f64(*f)
                    .map(from_big)
                    .ok_or_else(|| err(format!("exact: {f} has no exact representation")));
            }
            // f = m / 2^k exactly; keep it when both fit Steel's rationals.
            let mut num = *f;
            let mut den: f64 = 1.0;
            while num.fract() != 0.0 && den < 2f64.powi(31) {
                num *= 2.0;
                den *= 2.0;
            }
            if num.fract() == 0.0 && num.abs() <= i32::MAX as f64 && den <= i32::MAX as f64 {
                Ok(SteelVal::Rational(num_rational::Rational32::new(
                    num as i32, den as i32,
                )))
            } else {
                Err(err(format!(
                    "exact: {f} has no exact representation that fits (rationals are 32-bit)"
                )))
            }
        }
        other => Err(err(format!(
            "exact expects a number, found {}",
            super::printer::render(other, true, 200)
        ))),
    }
}

/// Shift counts beyond this are refused (the result, or its loss, is certain
/// to be meaningless, and the memory check bounds the left shifts anyway).
const MAX_SHIFT: i64 = 1 << 32;

pub(crate) fn arithmetic_shift(args: &[SteelVal]) -> SteelResult<SteelVal> {
    let [n, k] = args else {
        return Err(err(format!(
            "arithmetic-shift expects 2 arguments, got {}",
            args.len()
        )));
    };
    let n = integer("arithmetic-shift", n)?;
    let k = integer("arithmetic-shift", k)?
        .to_i64()
        .filter(|k| k.abs() <= MAX_SHIFT)
        .ok_or_else(|| err("arithmetic-shift: the shift count is out of range".to_string()))?;
    Ok(from_big(if k >= 0 {
        n << (k as usize)
    } else {
        // Floor division by 2^-k, as Scheme's arithmetic shift rounds.
        &n >> ((-k) as usize)
    }))
}

fn bitwise(
    name: &str,
    args: &[SteelVal],
    identity: i64,
    op: fn(BigInt, BigInt) -> BigInt,
) -> SteelResult<SteelVal> {
    let mut acc = BigInt::from(identity);
    for a in args {
        acc = op(acc, integer(name, a)?);
    }
    Ok(from_big(acc))
}

pub(crate) fn bitwise_and(args: &[SteelVal]) -> SteelResult<SteelVal> {
    bitwise("bitwise-and", args, -1, |a, b| a & b)
}

pub(crate) fn bitwise_ior(args: &[SteelVal]) -> SteelResult<SteelVal> {
    bitwise("bitwise-ior", args, 0, |a, b| a | b)
}

pub(crate) fn bitwise_xor(args: &[SteelVal]) -> SteelResult<SteelVal> {
    bitwise("bitwise-xor", args, 0, |a, b| a ^ b)
}

pub(crate) fn bitwise_not(args: &[SteelVal]) -> SteelResult<SteelVal> {
    match args {
        [v] => Ok(from_big(!integer("bitwise-not", v)?)),
        _ => Err(err(format!(
            "bitwise-not expects 1 argument, got {}",
            args.len()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(i: i64) -> SteelVal {
        SteelVal::IntV(i as isize)
    }

    #[test]
    fn exact_answers() {
        assert_eq!(
            abs(&[int(i64::MIN)]).unwrap(),
            from_big(BigInt::from(i64::MIN).abs())
        );
        assert_eq!(
            exact(&[SteelVal::NumV(1e19)]).unwrap(),
            from_big(BigInt::from(10_000_000_000_000_000_000u64))
        );
        assert!(exact(&[SteelVal::NumV(f64::NAN)]).is_err());
        assert_eq!(
            exact(&[SteelVal::NumV(1.5)]).unwrap(),
            SteelVal::Rational(num_rational::Rational32::new(3, 2))
        );
        assert_eq!(
            arithmetic_shift(&[int(1), int(64)]).unwrap(),
            from_big(BigInt::from(1) << 64usize)
        );
        assert_eq!(arithmetic_shift(&[int(1), int(-100)]).unwrap(), int(0));
        assert_eq!(arithmetic_shift(&[int(-1), int(-100)]).unwrap(), int(-1));
        let big = from_big(BigInt::from(1) << 65usize);
        assert_eq!(
            bitwise_ior(&[int(1), big]).unwrap(),
            from_big((BigInt::from(1) << 65usize) + 1)
        );
    }
}
