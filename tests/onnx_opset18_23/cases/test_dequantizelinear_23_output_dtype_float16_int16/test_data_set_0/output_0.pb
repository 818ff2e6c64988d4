
ByJςtpWo­λσ£υnlΝt+v.u3vφAtvΑυ