// dynamic: the ? dimension (the feature width of %arg1) is bound with --dim at 32
// SpMM chain with an SpMV and sparse edge scores, as torch-mlir emits it after
// torch-backend-to-linalg-on-tensors-backend-pipeline (FX import with a symbolic
// feature dimension, strict symbolic shapes, so no shape asserts):
//   H3 = A·(A·(A·X)),  r = H3.sum(dim=1),  t = A·r (torch.mv),  S = A * t[:, None] * t[None, :]
// A is CSR (N=1024); S is returned sparse (an elementwise product with A keeps A's layout).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#sparse = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
module {
  func.func @forward(%arg0: tensor<1024x1024xf32, #sparse>, %arg1: tensor<1024x?xf32>) -> tensor<1024x1024xf32, #sparse> {
    %c1 = arith.constant 1 : index
    %cst = arith.constant 0.000000e+00 : f32
    %dim = tensor.dim %arg1, %c1 : tensor<1024x?xf32>
    %0 = tensor.empty(%dim) : tensor<1024x?xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1024x?xf32>) -> tensor<1024x?xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<1024x1024xf32, #sparse>, tensor<1024x?xf32>) outs(%1 : tensor<1024x?xf32>) -> tensor<1024x?xf32>
    %3 = linalg.matmul ins(%arg0, %2 : tensor<1024x1024xf32, #sparse>, tensor<1024x?xf32>) outs(%1 : tensor<1024x?xf32>) -> tensor<1024x?xf32>
    %4 = linalg.matmul ins(%arg0, %3 : tensor<1024x1024xf32, #sparse>, tensor<1024x?xf32>) outs(%1 : tensor<1024x?xf32>) -> tensor<1024x?xf32>
    %5 = tensor.empty() : tensor<1024xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<1024xf32>) -> tensor<1024xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%4 : tensor<1024x?xf32>) outs(%6 : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.addf %in, %out : f32
      linalg.yield %11 : f32
    } -> tensor<1024xf32>
    %8 = linalg.matvec ins(%arg0, %7 : tensor<1024x1024xf32, #sparse>, tensor<1024xf32>) outs(%6 : tensor<1024xf32>) -> tensor<1024xf32>
    %9 = tensor.empty() : tensor<1024x1024xf32, #sparse>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %8, %8 : tensor<1024x1024xf32, #sparse>, tensor<1024xf32>, tensor<1024xf32>) outs(%9 : tensor<1024x1024xf32, #sparse>) {
    ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
      %11 = arith.mulf %in, %in_0 : f32
      %12 = arith.mulf %11, %in_1 : f32
      linalg.yield %12 : f32
    } -> tensor<1024x1024xf32, #sparse>
    return %10 : tensor<1024x1024xf32, #sparse>
  }
}
