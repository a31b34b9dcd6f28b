// The slice of Microsoft SEAL 3.6's public API that Tessel's generated C++ uses, declared
// with SEAL's signatures (seal/evaluator.h, seal/batchencoder.h, ...), so that tests can
// compile the output of `tessel-translate --target seal-cpp` with -fsyntax-only where the
// real SEAL headers are not installed.
#pragma once
#include <cstdint>
#include <vector>

namespace seal {
enum class scheme_type : std::uint8_t { none = 0, bfv = 1, ckks = 2 };
class Modulus {};
class Plaintext {};
class Ciphertext {};
class RelinKeys {};
class GaloisKeys {};
class EncryptionParameters {
 public:
  explicit EncryptionParameters(scheme_type scheme);
  void set_poly_modulus_degree(std::size_t poly_modulus_degree);
  void set_coeff_modulus(const std::vector<Modulus> &coeff_modulus);
  void set_plain_modulus(std::uint64_t plain_modulus);
};
class CoeffModulus {
 public:
  static std::vector<Modulus> Create(std::size_t poly_modulus_degree, std::vector<int> bit_sizes);
};
class BatchEncoder {
 public:
  std::size_t slot_count() const noexcept;
  void encode(const std::vector<std::uint64_t> &values_matrix, Plaintext &destination) const;
};
class Evaluator {
 public:
  void add(const Ciphertext &encrypted1, const Ciphertext &encrypted2, Ciphertext &destination) const;
  void sub(const Ciphertext &encrypted1, const Ciphertext &encrypted2, Ciphertext &destination) const;
  void multiply(const Ciphertext &encrypted1, const Ciphertext &encrypted2, Ciphertext &destination) const;
  void square(const Ciphertext &encrypted, Ciphertext &destination) const;
  void negate(const Ciphertext &encrypted, Ciphertext &destination) const;
  void relinearize(const Ciphertext &encrypted, const RelinKeys &relin_keys, Ciphertext &destination) const;
  void mod_switch_to_next(const Ciphertext &encrypted, Ciphertext &destination) const;
  void add_plain(const Ciphertext &encrypted, const Plaintext &plain, Ciphertext &destination) const;
  void sub_plain(const Ciphertext &encrypted, const Plaintext &plain, Ciphertext &destination) const;
  void multiply_plain(const Ciphertext &encrypted, const Plaintext &plain, Ciphertext &destination) const;
  void rotate_rows(const Ciphertext &encrypted, int steps, const GaloisKeys &galois_keys, Ciphertext &destination) const;
};
}  // namespace seal
