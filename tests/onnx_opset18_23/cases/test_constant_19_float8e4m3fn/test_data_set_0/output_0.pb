BvaluesJ
´Ç!;AA;FÁC