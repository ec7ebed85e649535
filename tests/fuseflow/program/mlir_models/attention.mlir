// One masked attention head with a pre layer norm, as torch-mlir emits it after
// torch-backend-to-linalg-on-tensors-backend-pipeline (T=256 tokens, D=64):
//   xn = layer_norm(x)  (decomposed: mean = sum/64, center, mean of squares = sum/64,
//                        + eps, rsqrt, multiply, * weight (all ones, a splat), + bias)
//   q, k, v = xn·Wq^T, xn·Wk^T, xn·Wv^T          (nn.Linear weights, elided, no bias)
//   s = (q·k^T) * mask * 0.125                    (mask: CSR argument; s is sparse)
//   e = exp(s - s.amax(dim=1, keepdim=True)) * mask
//   o = (e / e.sum(dim=1, keepdim=True))·v
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d1, d0)>
#sparse = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
module {
  func.func @forward(%arg0: tensor<256x64xf32>, %arg1: tensor<256x256xf32, #sparse>) -> tensor<256x64xf32> {
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 1.250000e-01 : f32
    %cst_1 = arith.constant dense_resource<__elided__> : tensor<64x64xf32>
    %cst_2 = arith.constant dense_resource<__elided__> : tensor<64x64xf32>
    %cst_3 = arith.constant dense_resource<__elided__> : tensor<64x64xf32>
    %cst_4 = arith.constant dense_resource<__elided__> : tensor<64xf32>
    %cst_5 = arith.constant dense<1.000000e+00> : tensor<64xf32>
    %cst_6 = arith.constant 9.99999974E-6 : f32
    %cst_7 = arith.constant 6.400000e+01 : f32
    %cst_8 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<256x1xf32>
    %1 = linalg.fill ins(%cst_8 : f32) outs(%0 : tensor<256x1xf32>) -> tensor<256x1xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<256x64xf32>) outs(%1 : tensor<256x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = arith.addf %in, %out : f32
      linalg.yield %38 : f32
    } -> tensor<256x1xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<256x1xf32>) outs(%0 : tensor<256x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = arith.divf %in, %cst_7 : f32
      linalg.yield %38 : f32
    } -> tensor<256x1xf32>
    %4 = tensor.empty() : tensor<256x64xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %3 : tensor<256x64xf32>, tensor<256x1xf32>) outs(%4 : tensor<256x64xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.subf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<256x64xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %5 : tensor<256x64xf32>, tensor<256x64xf32>) outs(%4 : tensor<256x64xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.mulf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<256x64xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%6 : tensor<256x64xf32>) outs(%1 : tensor<256x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = arith.addf %in, %out : f32
      linalg.yield %38 : f32
    } -> tensor<256x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<256x1xf32>) outs(%0 : tensor<256x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = arith.divf %in, %cst_7 : f32
      linalg.yield %38 : f32
    } -> tensor<256x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<256x1xf32>) outs(%0 : tensor<256x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = arith.addf %in, %cst_6 : f32
      linalg.yield %38 : f32
    } -> tensor<256x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<256x1xf32>) outs(%0 : tensor<256x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = math.rsqrt %in : f32
      linalg.yield %38 : f32
    } -> tensor<256x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %10 : tensor<256x64xf32>, tensor<256x1xf32>) outs(%4 : tensor<256x64xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.mulf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<256x64xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %cst_5 : tensor<256x64xf32>, tensor<64xf32>) outs(%4 : tensor<256x64xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.mulf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<256x64xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %cst_4 : tensor<256x64xf32>, tensor<64xf32>) outs(%4 : tensor<256x64xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.addf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<256x64xf32>
    %14 = tensor.empty() : tensor<64x64xf32>
    %15 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%cst_3 : tensor<64x64xf32>) outs(%14 : tensor<64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x64xf32>
    %16 = linalg.fill ins(%cst_8 : f32) outs(%4 : tensor<256x64xf32>) -> tensor<256x64xf32>
    %17 = linalg.matmul ins(%13, %15 : tensor<256x64xf32>, tensor<64x64xf32>) outs(%16 : tensor<256x64xf32>) -> tensor<256x64xf32>
    %18 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%cst_2 : tensor<64x64xf32>) outs(%14 : tensor<64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x64xf32>
    %19 = linalg.matmul ins(%13, %18 : tensor<256x64xf32>, tensor<64x64xf32>) outs(%16 : tensor<256x64xf32>) -> tensor<256x64xf32>
    %20 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%cst_1 : tensor<64x64xf32>) outs(%14 : tensor<64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x64xf32>
    %21 = linalg.matmul ins(%13, %20 : tensor<256x64xf32>, tensor<64x64xf32>) outs(%16 : tensor<256x64xf32>) -> tensor<256x64xf32>
    %22 = tensor.empty() : tensor<64x256xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<256x64xf32>) outs(%22 : tensor<64x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x256xf32>
    %24 = tensor.empty() : tensor<256x256xf32>
    %25 = linalg.fill ins(%cst_8 : f32) outs(%24 : tensor<256x256xf32>) -> tensor<256x256xf32>
    %26 = linalg.matmul ins(%17, %23 : tensor<256x64xf32>, tensor<64x256xf32>) outs(%25 : tensor<256x256xf32>) -> tensor<256x256xf32>
    %27 = tensor.empty() : tensor<256x256xf32, #sparse>
    %28 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%26, %arg1 : tensor<256x256xf32>, tensor<256x256xf32, #sparse>) outs(%27 : tensor<256x256xf32, #sparse>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.mulf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<256x256xf32, #sparse>
    %29 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%28 : tensor<256x256xf32, #sparse>) outs(%27 : tensor<256x256xf32, #sparse>) {
    ^bb0(%in: f32, %out: f32):
      %38 = arith.mulf %in, %cst_0 : f32
      linalg.yield %38 : f32
    } -> tensor<256x256xf32, #sparse>
    %30 = linalg.fill ins(%cst : f32) outs(%0 : tensor<256x1xf32>) -> tensor<256x1xf32>
    %31 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%29 : tensor<256x256xf32, #sparse>) outs(%30 : tensor<256x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = arith.maximumf %in, %out : f32
      linalg.yield %38 : f32
    } -> tensor<256x1xf32>
    %32 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%29, %31 : tensor<256x256xf32, #sparse>, tensor<256x1xf32>) outs(%24 : tensor<256x256xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.subf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<256x256xf32>
    %33 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%32 : tensor<256x256xf32>) outs(%24 : tensor<256x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = math.exp %in : f32
      linalg.yield %38 : f32
    } -> tensor<256x256xf32>
    %34 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%33, %arg1 : tensor<256x256xf32>, tensor<256x256xf32, #sparse>) outs(%27 : tensor<256x256xf32, #sparse>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.mulf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<256x256xf32, #sparse>
    %35 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%34 : tensor<256x256xf32, #sparse>) outs(%1 : tensor<256x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = arith.addf %in, %out : f32
      linalg.yield %38 : f32
    } -> tensor<256x1xf32>
    %36 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%34, %35 : tensor<256x256xf32, #sparse>, tensor<256x1xf32>) outs(%27 : tensor<256x256xf32, #sparse>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.divf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<256x256xf32, #sparse>
    %37 = linalg.matmul ins(%36, %21 : tensor<256x256xf32, #sparse>, tensor<256x64xf32>) outs(%16 : tensor<256x64xf32>) -> tensor<256x64xf32>
    return %37 : tensor<256x64xf32>
  }
}
