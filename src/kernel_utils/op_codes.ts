// Operation codes shared with native/include/wm/ops.h (same order).
export const enum UnaryOp {
  Neg = 0, Abs, Exp, Log, Log1p, Sqrt, Rsqrt, Square, Relu, Relu6, Elu,
  LeakyRelu, Sigmoid, Tanh, Softplus, Step, Cast, LogicalNot, Reciprocal,
  Floor, Ceil, Sign, Sin, Cos, Expm1, Round, IsNan, Selu, ClipByValue,
  Erf, Acos, Asin, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Tan, IsInf, IsFinite
}

export const enum BinaryOp {
  Add = 0, Sub, Mul, Div, Maximum, Minimum, Pow, SquaredDifference,
  Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, LogicalAnd,
  LogicalOr, FloorDiv, Mod, Atan2, Prelu, DivNoNan, EluGrad, ReluGrad
}

// The 2-D window kernels' pools (wm/window2d.h): ArgMax gives each maximum's window position.
export const enum PoolOp { Max = 0, ArgMax, Avg }

export const enum ReduceOp { Sum = 0, Prod, Max, Min, Mean, All, Any, ArgMax, ArgMin }
