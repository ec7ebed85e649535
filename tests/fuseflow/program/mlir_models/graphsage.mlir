// One GraphSAGE layer with the mean aggregator (PyG SAGEConv layout), as torch-mlir
// emits it after torch-backend-to-linalg-on-tensors-backend-pipeline:
//   x_self = x.clone()
//   h = relu((A·x)·W_neigh^T + b_neigh + x_self·W_self^T)
// A is the row-normalized adjacency (CSR, N=2708), x the features (F=1433); the
// nn.Linear weights (out x in, H=16) are elided constants, transposed by generics.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#sparse = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
module {
  func.func @forward(%arg0: tensor<2708x2708xf32, #sparse>, %arg1: tensor<2708x1433xf32>) -> tensor<2708x16xf32> {
    %cst = arith.constant dense_resource<__elided__> : tensor<16x1433xf32>
    %cst_0 = arith.constant dense_resource<__elided__> : tensor<16xf32>
    %cst_1 = arith.constant dense_resource<__elided__> : tensor<16x1433xf32>
    %cst_2 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2708x1433xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<2708x1433xf32>) outs(%0 : tensor<2708x1433xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2708x1433xf32>
    %2 = linalg.fill ins(%cst_2 : f32) outs(%0 : tensor<2708x1433xf32>) -> tensor<2708x1433xf32>
    %3 = linalg.matmul ins(%arg0, %arg1 : tensor<2708x2708xf32, #sparse>, tensor<2708x1433xf32>) outs(%2 : tensor<2708x1433xf32>) -> tensor<2708x1433xf32>
    %4 = tensor.empty() : tensor<1433x16xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%cst_1 : tensor<16x1433xf32>) outs(%4 : tensor<1433x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1433x16xf32>
    %6 = tensor.empty() : tensor<2708x16xf32>
    %7 = linalg.fill ins(%cst_2 : f32) outs(%6 : tensor<2708x16xf32>) -> tensor<2708x16xf32>
    %8 = linalg.matmul ins(%3, %5 : tensor<2708x1433xf32>, tensor<1433x16xf32>) outs(%7 : tensor<2708x16xf32>) -> tensor<2708x16xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %cst_0 : tensor<2708x16xf32>, tensor<16xf32>) outs(%6 : tensor<2708x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %14 = arith.addf %in, %in_3 : f32
      linalg.yield %14 : f32
    } -> tensor<2708x16xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%cst : tensor<16x1433xf32>) outs(%4 : tensor<1433x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1433x16xf32>
    %11 = linalg.matmul ins(%1, %10 : tensor<2708x1433xf32>, tensor<1433x16xf32>) outs(%7 : tensor<2708x16xf32>) -> tensor<2708x16xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %11 : tensor<2708x16xf32>, tensor<2708x16xf32>) outs(%6 : tensor<2708x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %14 = arith.addf %in, %in_3 : f32
      linalg.yield %14 : f32
    } -> tensor<2708x16xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<2708x16xf32>) outs(%6 : tensor<2708x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = arith.cmpf ugt, %in, %cst_2 : f32
      %15 = arith.select %14, %in, %cst_2 : f32
      linalg.yield %15 : f32
    } -> tensor<2708x16xf32>
    return %13 : tensor<2708x16xf32>
  }
}
