// Sparse autoencoder with pruned (CSR) encoder and decoder weights passed as
// arguments, as torch-mlir emits it after torch-backend-to-linalg-on-tensors-backend-pipeline:
//   z = tanh(x·W_enc + b_enc),  y = sigmoid(z·W_dec + b_dec)
// B=64, D=512, hidden 128; the biases are elided constants. %7 (the per-sample
// activation sum z.sum(dim=1), a sparsity statistic the model computes but does
// not return) is dead: the result does not depend on it.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
#sparse = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
module {
  func.func @forward(%arg0: tensor<64x512xf32>, %arg1: tensor<512x128xf32, #sparse>, %arg2: tensor<128x512xf32, #sparse>) -> tensor<64x512xf32> {
    %cst = arith.constant 1.000000e+00 : f32
    %cst_0 = arith.constant dense_resource<__elided__> : tensor<512xf32>
    %cst_1 = arith.constant dense_resource<__elided__> : tensor<128xf32>
    %cst_2 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<64x128xf32>
    %1 = linalg.fill ins(%cst_2 : f32) outs(%0 : tensor<64x128xf32>) -> tensor<64x128xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<64x512xf32>, tensor<512x128xf32, #sparse>) outs(%1 : tensor<64x128xf32>) -> tensor<64x128xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %cst_1 : tensor<64x128xf32>, tensor<128xf32>) outs(%0 : tensor<64x128xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %13 = arith.addf %in, %in_3 : f32
      linalg.yield %13 : f32
    } -> tensor<64x128xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<64x128xf32>) outs(%0 : tensor<64x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = math.tanh %in : f32
      linalg.yield %13 : f32
    } -> tensor<64x128xf32>
    %5 = tensor.empty() : tensor<64xf32>
    %6 = linalg.fill ins(%cst_2 : f32) outs(%5 : tensor<64xf32>) -> tensor<64xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%4 : tensor<64x128xf32>) outs(%6 : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.addf %in, %out : f32
      linalg.yield %13 : f32
    } -> tensor<64xf32>
    %8 = tensor.empty() : tensor<64x512xf32>
    %9 = linalg.fill ins(%cst_2 : f32) outs(%8 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %10 = linalg.matmul ins(%4, %arg2 : tensor<64x128xf32>, tensor<128x512xf32, #sparse>) outs(%9 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %cst_0 : tensor<64x512xf32>, tensor<512xf32>) outs(%8 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %13 = arith.addf %in, %in_3 : f32
      linalg.yield %13 : f32
    } -> tensor<64x512xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<64x512xf32>) outs(%8 : tensor<64x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.negf %in : f32
      %14 = math.exp %13 : f32
      %15 = arith.addf %14, %cst : f32
      %16 = arith.divf %cst, %15 : f32
      linalg.yield %16 : f32
    } -> tensor<64x512xf32>
    return %12 : tensor<64x512xf32>
  }
}
